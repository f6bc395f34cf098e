/**
 * The checks every simulated endpoint runs before its own work: the API key (Authentication part), the
 * request rate (Limits part) and the JSON body of a launcher (Errors: VALIDATION_MISSING_BODY,
 * VALIDATION_BAD_REQUEST).
 */
import type { Request, RequestHandler, Response } from 'express';
import { parseJsonText } from '../contract/json.js';
import { formatRateLimitMessage, RATE_LIMIT_HEADERS } from '../contract/rate-limit.js';
import { ValidationError } from '../errors.js';
import type { ApiKeyRecord, ApiKeyRegistry } from './api-key-registry.js';
import type { AccountRateLimiter } from './rate-window.js';
import { sendError } from './send-error.js';

/** The header carrying the API key (Authentication, rule 1). */
export const API_KEY_HEADER = 'x-api-key';

/** The key record a request authenticated with (set by {@link requireApiKey}). */
export function authenticatedKey(res: Response): ApiKeyRecord {
  const record = res.locals.apiKey as ApiKeyRecord | undefined;
  if (record === undefined) throw new TypeError('authenticatedKey: requireApiKey did not run');
  return record;
}

/**
 * Missing header → 401 AUTH_MISSING_API_KEY; unknown or inactive key → 403 AUTH_BAD_API_KEY; a sub-key
 * where `master` is asked → 403 AUTH_NEED_MASTER_API_KEY.
 */
export function requireApiKey(registry: ApiKeyRegistry, options: { master?: boolean } = {}): RequestHandler {
  return (req, res, next) => {
    const key = req.get(API_KEY_HEADER);
    if (key === undefined || key === '') {
      sendError(res, 'AUTH_MISSING_API_KEY', `Missing API key: send it in the ${API_KEY_HEADER} header`);
      return;
    }
    const record = registry.find(key);
    if (record === undefined || !record.active) {
      sendError(res, 'AUTH_BAD_API_KEY', 'Invalid API key');
      return;
    }
    if (options.master === true && !record.master) {
      sendError(res, 'AUTH_NEED_MASTER_API_KEY', 'This operation needs the master API key');
      return;
    }
    res.locals.apiKey = record;
    next();
  };
}

/**
 * The account and per-key rate on the Search and Job Change endpoints. Over it: 429
 * RATE_LIMIT_RATE_LIMIT_EXCEEDED with X-RateLimit-Limit, -Interval, -Remaining and Retry-After.
 */
export function limitRate(limiter: AccountRateLimiter, now: () => number): RequestHandler {
  return (_req, res, next) => {
    const record = authenticatedKey(res);
    const keyRate = { perInterval: record.per_interval, intervalSeconds: record.interval_seconds };
    const refusal = limiter.admit(record.api_key, keyRate, now());
    if (refusal === undefined) {
      next();
      return;
    }
    res.set({
      [RATE_LIMIT_HEADERS.limit]: String(refusal.limit.perInterval),
      [RATE_LIMIT_HEADERS.interval]: String(refusal.limit.intervalSeconds),
      [RATE_LIMIT_HEADERS.remaining]: String(refusal.remaining),
      [RATE_LIMIT_HEADERS.retryAfter]: String(refusal.retryAfterSeconds),
    });
    sendError(res, 'RATE_LIMIT_RATE_LIMIT_EXCEEDED', formatRateLimitMessage(refusal.retryAfterSeconds));
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON value of a launcher's body (read raw by express.raw): undefined for no or a blank body (the
 * contract's parsers answer VALIDATION_MISSING_BODY), ValidationError VALIDATION_BAD_REQUEST for bytes that
 * are not UTF-8 JSON.
 */
export function readJsonBody(req: Request): unknown {
  const raw: unknown = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new ValidationError('VALIDATION_BAD_REQUEST', 'Invalid request: body is not UTF-8', [
      'body: is not UTF-8',
    ]);
  }
  if (text.trim() === '') return undefined;
  try {
    return parseJsonText(text);
  } catch (error) {
    const issue = `body: malformed JSON (${(error as Error).message})`;
    throw new ValidationError('VALIDATION_BAD_REQUEST', `Invalid request: ${issue}`, [issue], {
      cause: error,
    });
  }
}
