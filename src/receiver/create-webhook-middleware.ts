/**
 * hooksync's verification and storage inside a user's own express app:
 *
 *   app.post('/webhooks', createWebhookMiddleware(handler));
 *
 * Mount it before any body parser on that route: it then applies the same rules as `hooksync serve`
 * (issue 15): the token is verified before the body is read, unsigned bodies are read only up to a prefix,
 * verified ones within the handler's memory budget. A Buffer left by `express.raw()` is accepted too, but
 * then the parser has already read the whole body, whoever sent it.
 */
import type { RequestHandler, Response } from 'express';
import { WEBHOOK_SIGNATURE_HEADER } from '../contract/webhook-signature.js';
import type { DeliveryAnswer } from './delivery-answer.js';
import type { DeliveryHandler } from './handle-delivery.js';

/** An express handler answering deliveries exactly as `hooksync serve` does. */
export function createWebhookMiddleware(handler: DeliveryHandler): RequestHandler {
  return async (req, res) => {
    if (Buffer.isBuffer(req.body)) {
      const raw = req.headers[WEBHOOK_SIGNATURE_HEADER];
      const signature = Array.isArray(raw) ? raw[0] : raw;
      const contentType = req.headers['content-type'];
      send(res, await handler.handle({ body: req.body, contentType, signature }));
      return;
    }
    send(res, await handler.receive(req));
  };
}

function send(res: Response, answer: DeliveryAnswer): void {
  if (answer.connection === 'destroy') {
    res.destroy();
    return;
  }
  if (answer.connection === 'close') res.set('connection', 'close');
  if (answer.retryAfterSeconds !== undefined) res.set('retry-after', String(answer.retryAfterSeconds));
  res.status(answer.status).json(answer.body);
}
