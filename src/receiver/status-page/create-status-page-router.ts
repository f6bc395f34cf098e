/**
 * GET /ui: the receiver's status page, behind the admin token (HOOKSYNC_ADMIN_TOKEN). With no token the
 * routes do not exist (404). A script sends `Authorization: Bearer <token>`; a browser signs in once through
 * the form (POST /ui/login) and then carries an HttpOnly, SameSite=Strict cookie holding an HMAC keyed by the
 * token, never the token itself.
 */
import { randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import { isAuthorizedBearer } from '../../reconcile/create-admin-router.js';
import type { Database } from '../../storage/database.js';
import { loadStatusSnapshot } from './load-status-snapshot.js';
import { renderLoginPage } from './render-login-page.js';
import { contentSecurityPolicy } from './render-page-layout.js';
import { renderStatusPage } from './render-status-page.js';
import {
  createSessionValue,
  DEFAULT_SESSION_SECONDS,
  isSameSecret,
  isValidSessionValue,
  readCookie,
  SESSION_COOKIE_NAME,
  serializeSessionCookie,
} from './session-cookie.js';

/** Path of the status page. */
export const STATUS_PAGE_PATH = '/ui';
/** Failed sign-ins accepted per minute (per process) before the form answers 429: slows token guessing. */
export const DEFAULT_LOGIN_FAILURES_PER_MINUTE = 10;
const MINUTE_MS = 60_000;

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
  const logger = deps.logger ?? pino({ level: 'silent' });
  const now = deps.now ?? (() => new Date());
  const sessionSeconds = deps.sessionSeconds ?? DEFAULT_SESSION_SECONDS;
  if (!Number.isSafeInteger(sessionSeconds) || sessionSeconds < 1)
    throw new TypeError('sessionSeconds must be a positive integer');
  let failures: number[] = [];

  const paths = (req: Request) => ({
    page: `${req.baseUrl}${STATUS_PAGE_PATH}`,
    login: `${req.baseUrl}${STATUS_PAGE_PATH}/login`,
    logout: `${req.baseUrl}${STATUS_PAGE_PATH}/logout`,
  });
  const isAuthorized = (req: Request): boolean => {
    const header = req.get('authorization');
    if (header !== undefined && isAuthorizedBearer(header, token)) return true;
    return isValidSessionValue(readCookie(req.get('cookie'), SESSION_COOKIE_NAME), token, now().getTime());
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

  router.get(STATUS_PAGE_PATH, async (req: Request, res: Response) => {
    if (!isAuthorized(req)) {
      sendLogin(req, res, 401);
      return;
    }
    const snapshot = await loadStatusSnapshot({ db: deps.db, now: now(), logger });
    const nonce = randomBytes(16).toString('base64');
    sendHtml(res, 200, renderStatusPage(snapshot, { nonce, links: paths(req) }), nonce);
  });

  router.post(
    `${STATUS_PAGE_PATH}/login`,
    express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 }),
    (req: Request, res: Response) => {
      const nowMs = now().getTime();
      failures = failures.filter((at) => at > nowMs - MINUTE_MS);
      if (failures.length >= DEFAULT_LOGIN_FAILURES_PER_MINUTE) {
        res.set('retry-after', '60');
        sendLogin(req, res, 429, 'Too many failed sign-ins. Wait a minute and try again.');
        return;
      }
      const body: unknown = req.body;
      const presented =
        typeof body === 'object' && body !== null ? (body as Record<string, unknown>).token : undefined;
      if (typeof presented !== 'string' || !isSameSecret(presented, token)) {
        failures.push(nowMs);
        logger.warn('status page: failed sign-in');
        sendLogin(req, res, 401, 'That is not the admin token.');
        return;
      }
      const value = createSessionValue(token, nowMs + sessionSeconds * 1000);
      const links = paths(req);
      res.set(
        'set-cookie',
        serializeSessionCookie(value, {
          path: links.page,
          maxAgeSeconds: sessionSeconds,
          secure: isHttps(req),
        }),
      );
      res.set('cache-control', 'no-store').redirect(303, links.page);
    },
  );

  router.post(`${STATUS_PAGE_PATH}/logout`, (req: Request, res: Response) => {
    const links = paths(req);
    res.set(
      'set-cookie',
      serializeSessionCookie('', { path: links.page, maxAgeSeconds: 0, secure: isHttps(req) }),
    );
    res.set('cache-control', 'no-store').redirect(303, links.page);
  });

  // Form-parser failures (too large, malformed) and anything unexpected: a plain page, no details.
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
