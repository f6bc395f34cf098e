/**
 * GET /ui: the receiver's status page, behind the admin token (HOOKSYNC_ADMIN_TOKEN). With no token the
 * routes do not exist (404). A script sends `Authorization: Bearer <token>`; a browser signs in once through
 * the form (POST /ui/login) and then carries an HttpOnly, SameSite=Strict cookie naming a server-side
 * session (signed by an HMAC keyed by the token, never the token itself); POST /ui/logout ends it. Wrong
 * tokens, bearer or form, are throttled per client address (429 past the limit).
 */
import { randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import { assertAdminTokenLength } from '../../config/min-admin-token-length.js';
import type { Database } from '../../storage/database.js';
import {
  type AuthThrottle,
  clientAddress,
  createAuthThrottle,
} from '../admin-access/create-auth-throttle.js';
import { hasBearer, isAuthorizedBearer, isSameSecret } from '../admin-access/is-same-secret.js';
import { loadStatusSnapshot } from './load-status-snapshot.js';
import { renderLoginPage } from './render-login-page.js';
import { contentSecurityPolicy } from './render-page-layout.js';
import { renderStatusPage } from './render-status-page.js';
import {
  createSessionValue,
  DEFAULT_SESSION_SECONDS,
  newSessionId,
  parseSessionValue,
  readCookie,
  SESSION_COOKIE_NAME,
  serializeSessionCookie,
} from './session-cookie.js';
import { createUiSession, endUiSession, isLiveUiSession } from './ui-sessions.js';

/** Path of the status page. */
export const STATUS_PAGE_PATH = '/ui';

/** What the status page needs. */
export interface StatusPageRouterDeps {
  db: Kysely<Database>;
  /** The admin token; undefined or empty switches the page off (404). */
  adminToken: string | undefined;
  /** Clock (default the real one). */
  now?: () => Date;
  /** Where unreadable sections and failures are reported (default silent). */
  logger?: Logger;
  /** Lifetime of a sign-in, in seconds (default {@link DEFAULT_SESSION_SECONDS}). */
  sessionSeconds?: number;
  /** Counts wrong tokens per client address (default one of its own; the receiver shares one with /admin). */
  throttle?: AuthThrottle;
}

function sendHtml(res: Response, status: number, page: string, nonce: string): void {
  res
    .status(status)
    .set({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': contentSecurityPolicy(nonce),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    })
    .send(page);
}

function isHttps(req: Request): boolean {
  // Behind a TLS-terminating proxy the request arrives as HTTP; Secure only narrows where the cookie goes.
  const forwarded = req.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return req.secure || forwarded === 'https';
}

/** Builds the router; mount it at the root of the receiver's express app. */
export function createStatusPageRouter(deps: StatusPageRouterDeps): Router {
  const router = express.Router();
  const token = deps.adminToken;
  if (token === undefined || token === '') return router;
  assertAdminTokenLength(token);
  const logger = deps.logger ?? pino({ level: 'silent' });
  const now = deps.now ?? (() => new Date());
  const sessionSeconds = deps.sessionSeconds ?? DEFAULT_SESSION_SECONDS;
  if (!Number.isSafeInteger(sessionSeconds) || sessionSeconds < 1)
    throw new TypeError('sessionSeconds must be a positive integer');
  const throttle = deps.throttle ?? createAuthThrottle({ logger, now: () => now().getTime() });

  const paths = (req: Request) => ({
    page: `${req.baseUrl}${STATUS_PAGE_PATH}`,
    login: `${req.baseUrl}${STATUS_PAGE_PATH}/login`,
    logout: `${req.baseUrl}${STATUS_PAGE_PATH}/logout`,
  });
  const sessionOf = (req: Request) =>
    parseSessionValue(readCookie(req.get('cookie'), SESSION_COOKIE_NAME), token, now().getTime());
  /**
   * 'ok' to a valid bearer token or a live session; 'throttled' (refused unchecked) or 'wrong' to a wrong
   * bearer token; 'none' to a visit with neither (shown the form, not counted as a guess).
   */
  const authorize = async (req: Request): Promise<'ok' | 'none' | 'wrong' | 'throttled'> => {
    const header = req.get('authorization');
    if (hasBearer(header)) {
      const address = clientAddress(req.socket.remoteAddress);
      if (throttle.retryAfterSeconds(address) > 0) {
        throttle.recordThrottled(address, 'status_page');
        return 'throttled';
      }
      if (isAuthorizedBearer(header, token)) return 'ok';
      throttle.recordFailure(address, 'status_page');
      return 'wrong';
    }
    // A cookie is not a guess at the token (its HMAC is checked first): it is never throttled nor counted.
    const session = sessionOf(req);
    return session !== undefined && (await isLiveUiSession(deps.db, session.sessionId, now()))
      ? 'ok'
      : 'none';
  };
  const sendLogin = (req: Request, res: Response, status: number, error?: string): void => {
    const nonce = randomBytes(16).toString('base64');
    if (status === 401) res.set('www-authenticate', 'Bearer realm="hooksync-status"');
    sendHtml(
      res,
      status,
      renderLoginPage({ nonce, action: paths(req).login, ...(error ? { error } : {}) }),
      nonce,
    );
  };

  const sendThrottled = (req: Request, res: Response, address: string): void => {
    res.set('retry-after', String(Math.max(1, throttle.retryAfterSeconds(address))));
    sendLogin(req, res, 429, 'Too many wrong tokens from this address. Wait a minute and try again.');
  };

  router.get(STATUS_PAGE_PATH, async (req: Request, res: Response) => {
    const access = await authorize(req);
    if (access === 'throttled') {
      sendThrottled(req, res, clientAddress(req.socket.remoteAddress));
      return;
    }
    if (access !== 'ok') {
      sendLogin(req, res, 401);
      return;
    }
    // Quarantined bodies may hold personal data: shown only when the operator asks (?bodies=1).
    const bodies = req.query.bodies === '1';
    const snapshot = await loadStatusSnapshot({ db: deps.db, now: now(), logger, bodies });
    const nonce = randomBytes(16).toString('base64');
    sendHtml(res, 200, renderStatusPage(snapshot, { nonce, links: paths(req) }), nonce);
  });

  router.post(
    `${STATUS_PAGE_PATH}/login`,
    express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 }),
    async (req: Request, res: Response) => {
      const address = clientAddress(req.socket.remoteAddress);
      if (throttle.retryAfterSeconds(address) > 0) {
        // Refused unchecked: answering a right token here would turn the throttle into a guessing oracle.
        throttle.recordThrottled(address, 'status_page');
        sendThrottled(req, res, address);
        return;
      }
      const body: unknown = req.body;
      const presented =
        typeof body === 'object' && body !== null ? (body as Record<string, unknown>).token : undefined;
      if (typeof presented !== 'string' || !isSameSecret(presented, token)) {
        throttle.recordFailure(address, 'status_page');
        sendLogin(req, res, 401, 'That is not the admin token.');
        return;
      }
      const signedInAt = now();
      const expiresAt = new Date(signedInAt.getTime() + sessionSeconds * 1000);
      const sessionId = newSessionId();
      await createUiSession(deps.db, sessionId, signedInAt, expiresAt);
      const links = paths(req);
      res.set(
        'set-cookie',
        serializeSessionCookie(createSessionValue(token, sessionId, expiresAt.getTime()), {
          path: links.page,
          maxAgeSeconds: sessionSeconds,
          secure: isHttps(req),
        }),
      );
      res.set('cache-control', 'no-store').redirect(303, links.page);
    },
  );

  router.post(`${STATUS_PAGE_PATH}/logout`, async (req: Request, res: Response) => {
    // Ends the session server-side: a copy of the cookie kept elsewhere stops working too.
    const session = sessionOf(req);
    if (session !== undefined) await endUiSession(deps.db, session.sessionId);
    const links = paths(req);
    res.set(
      'set-cookie',
      serializeSessionCookie('', { path: links.page, maxAgeSeconds: 0, secure: isHttps(req) }),
    );
    res.set('cache-control', 'no-store').redirect(303, links.page);
  });

  router.use(STATUS_PAGE_PATH, (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: unknown }).status;
    if (status === 400 || status === 413) {
      sendLogin(req, res, status, 'The form could not be read.');
      return;
    }
    logger.error({ err: error }, 'status page failure');
    res
      .status(500)
      .type('text/plain; charset=utf-8')
      .set('cache-control', 'no-store')
      .send('The status page failed; the receiver log says why.\n');
  });
  return router;
}
