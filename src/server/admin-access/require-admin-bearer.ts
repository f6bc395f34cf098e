/**
 * The guard of every admin API route: `Authorization: Bearer <admin token>`, checked in constant time,
 * wrong tokens throttled per client address. Mount it before any route under /admin, sharing the
 * receiver's throttle, so that a guess counts the same wherever it is made.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ErrorAnswerBody } from '../../errors.js';
import { type AuthThrottle, clientAddress } from './create-auth-throttle.js';
import { isAuthorizedBearer } from './is-same-secret.js';

/** An express middleware that lets through only requests carrying the admin token as a bearer. */
export function requireAdminBearer(token: string, throttle: AuthThrottle): RequestHandler {
  if (token === '') throw new TypeError('requireAdminBearer needs the admin token');
  return (req: Request, res: Response, next: NextFunction) => {
    const address = clientAddress(req.socket.remoteAddress);
    const waitSeconds = throttle.retryAfterSeconds(address);
    if (waitSeconds > 0) {
      // Refused unchecked: answering a right token here would turn the throttle into a guessing oracle.
      throttle.recordThrottled(address, 'admin_api');
      res.set('retry-after', String(waitSeconds));
      res.status(429).json({
        status: 'error',
        code: 'TOO_MANY_FAILED_ATTEMPTS',
        message: 'too many wrong admin tokens from this address; retry later',
      } satisfies ErrorAnswerBody);
      return;
    }
    if (isAuthorizedBearer(req.get('authorization'), token)) {
      next();
      return;
    }
    throttle.recordFailure(address, 'admin_api');
    res.set('www-authenticate', 'Bearer realm="hooksync-admin"');
    res.status(401).json({
      status: 'error',
      code: 'UNAUTHORIZED',
      message: 'a valid admin bearer token is required',
    } satisfies ErrorAnswerBody);
  };
}
