/**
 * hooksync's verification and storage inside a user's own express app:
 *
 *   app.post('/webhooks', createWebhookMiddleware(handler));
 *
 * Mount it before any body parser on that route: it then applies the same rules as `hooksync serve`
 * (issue 15): the token is verified before the body is read, unsigned bodies are read only up to a prefix,
 * verified ones within the handler's memory budget; a delivery answered before its body is read is not
 * read further, and its connection ends as `serve` ends it (lingerIfUnread). A Buffer left by
 * `express.raw()` is accepted too, but then the parser has already read the whole body, whoever sent it.
 * Mounted after a parser that left anything else (`express.json()`), it answers 500 at once, naming the
 * cause and the fix, and logs it once.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { WEBHOOK_SIGNATURE_HEADER } from '../contract/webhook-signature.js';
import { type DeliveryAnswer, retryLater } from './delivery-answer.js';
import type { DeliveryHandler } from './handle-delivery.js';
import { lingerIfUnread } from './linger-without-reading.js';

/** Knobs of {@link createWebhookMiddleware}. */
export interface WebhookMiddlewareOptions {
  /** Where a mounting mistake is reported, once (default: a process warning). */
  readonly logger?: Pick<Logger, 'error'>;
}

/** What a body parser that ran before the middleware left, or undefined when the body is still to read. */
function readBefore(req: Request): string | undefined {
  const body: unknown = req.body;
  if (body !== undefined && !Buffer.isBuffer(body)) {
    return `a body parser ran first (req.body is ${typeof body === 'string' ? 'a string' : 'already parsed'})`;
  }
  if (body === undefined && req.readableEnded)
    return 'the request body was already read by another middleware';
  return undefined;
}

/** The fix, as the answer and the log say it. */
const MOUNT_FIX =
  'mount createWebhookMiddleware before any body parser on its route (app.post(path, createWebhookMiddleware(handler)) ' +
  'before app.use(express.json())), or give it the raw bytes with express.raw({ type: "*/*" }): ' +
  'the signature covers the exact bytes sent';

/** An express handler answering deliveries exactly as `hooksync serve` does. */
export function createWebhookMiddleware(
  handler: DeliveryHandler,
  options: WebhookMiddlewareOptions = {},
): RequestHandler {
  let reported = false;
  return async (req, res) => {
    const cause = readBefore(req);
    if (cause !== undefined) {
      // A 500 (retried by the sender) until the app is fixed: nothing is refused or lost meanwhile.
      const message = `hooksync cannot verify this delivery: ${cause}; ${MOUNT_FIX}`;
      if (!reported) {
        reported = true;
        if (options.logger) options.logger.error({ path: req.path }, message);
        else process.emitWarning(message, { code: 'HOOKSYNC_MIDDLEWARE_AFTER_BODY_PARSER' });
      }
      send(res, retryLater('INTERNAL_ERROR', message));
      return;
    }
    if (Buffer.isBuffer(req.body)) {
      const raw = req.headers[WEBHOOK_SIGNATURE_HEADER];
      const signature = Array.isArray(raw) ? raw[0] : raw;
      const contentType = req.headers['content-type'];
      send(res, await handler.handle({ body: req.body, contentType, signature }));
      return;
    }
    const answer = await handler.receive(req);
    // Answered before the body was wholly read (a refusal, a budget spent): the rest is not read, and the
    // connection ends once the answer is out, exactly as `hooksync serve` leaves it.
    lingerIfUnread(req, answer);
    send(res, answer);
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
