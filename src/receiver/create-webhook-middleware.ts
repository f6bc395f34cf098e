/**
 * hooksync's verification and storage inside a user's own express app:
 *
 *   app.post('/webhooks', createWebhookMiddleware(handler));
 *
 * Mount it before any body parser on that route (the signature covers the raw bytes); a Buffer left by
 * `express.raw()` is accepted too.
 */
import type { RequestHandler } from 'express';
import { WEBHOOK_SIGNATURE_HEADER } from '../contract/webhook-signature.js';
import type { DeliveryHandler } from './handle-delivery.js';
import { BodyReadError, DEFAULT_BODY_LIMIT_BYTES, readBody } from './read-body.js';

/** Knobs of the middleware. */
export interface WebhookMiddlewareOptions {
  /** Largest body accepted, in bytes (default 32 MB). */
  bodyLimitBytes?: number;
}

/** An express handler answering deliveries exactly as `hooksync serve` does. */
export function createWebhookMiddleware(
  handler: DeliveryHandler,
  options: WebhookMiddlewareOptions = {},
): RequestHandler {
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  return async (req, res) => {
    const contentType = req.headers['content-type'];
    const raw = req.headers[WEBHOOK_SIGNATURE_HEADER];
    const signature = Array.isArray(raw) ? raw[0] : raw;
    let body: Buffer;
    if (Buffer.isBuffer(req.body)) {
      body = req.body;
    } else {
      try {
        body = await readBody(req, limit);
      } catch (error) {
        if (!(error instanceof BodyReadError) || error.reason !== 'too_large') {
          res.destroy();
          return;
        }
        const answer = await handler.tooLarge({ body: Buffer.alloc(0), contentType, signature }, limit);
        res.set('connection', 'close').status(answer.status).json(answer.body);
        return;
      }
    }
    const answer = await handler.handle({ body, contentType, signature });
    if (answer.retryAfterSeconds !== undefined) res.set('retry-after', String(answer.retryAfterSeconds));
    res.status(answer.status).json(answer.body);
  };
}
