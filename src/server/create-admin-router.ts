/**
 * The receiver's admin API for the ledger: POST /admin/expected-jobs adds entries, GET lists them.
 * Guarded by a bearer token (HOOKSYNC_ADMIN_TOKEN) compared in constant time; wrong tokens are throttled
 * per client address (429 past the limit). With no token configured the routes do not exist (404), so an
 * unconfigured receiver exposes nothing.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import { assertAdminTokenLength } from '../config/min-admin-token-length.js';
import { type AdminCode, type ValidationCode, ValidationError } from '../errors.js';
import type { Database } from '../storage/database.js';
import {
  countExpectedJobs,
  DEFAULT_LIST_LIMIT,
  EXPECTED_JOB_STATES,
  isExpectedJobState,
  listExpectedJobs,
  MAX_LIST_LIMIT,
} from '../storage/ledger/list-expected-jobs.js';
import { parseExpectedJobsBody } from '../storage/ledger/parse-expected-jobs-body.js';
import { recordExpectedJobs } from '../storage/ledger/record-expected-jobs.js';
import { type AuthThrottle, createAuthThrottle } from './admin-access/create-auth-throttle.js';
import { requireAdminBearer } from './admin-access/require-admin-bearer.js';

/** Path of the ledger's admin resource. */
export const EXPECTED_JOBS_PATH = '/admin/expected-jobs';
/** Largest accepted body (about 100 000 ids). */
export const DEFAULT_ADMIN_BODY_LIMIT = '8mb';

/** What the admin router needs. */
export interface AdminRouterDeps {
  db: Kysely<Database>;
  /** The bearer token; undefined or empty switches the admin API off (404). */
  adminToken: string | undefined;
  /** Clock, as epoch ms or a Date (default the real clock). */
  now?: () => number | Date;
  /** Default silent. */
  logger?: Logger;
  /** Counts wrong tokens per client address (default one of its own; the receiver shares one with /ui). */
  throttle?: AuthThrottle;
}

function sendError(
  res: Response,
  status: number,
  code: AdminCode | ValidationCode,
  message: string,
  issues?: readonly string[],
): void {
  res
    .status(status)
    .json({ status: 'error', code, message, ...(issues && issues.length > 0 ? { error: issues } : {}) });
}

/** Builds the router; mount it at the root of the receiver's express app. */
export function createAdminRouter(deps: AdminRouterDeps): Router {
  const router = express.Router();
  const token = deps.adminToken;
  if (token === undefined || token === '') return router;
  assertAdminTokenLength(token);
  const logger = deps.logger ?? pino({ level: 'silent' });
  const throttle = deps.throttle ?? createAuthThrottle({ logger });
  const now = (): Date => {
    const value = deps.now?.() ?? Date.now();
    return value instanceof Date ? value : new Date(value);
  };

  router.use(EXPECTED_JOBS_PATH, requireAdminBearer(token, throttle));

  router.post(
    EXPECTED_JOBS_PATH,
    express.json({ limit: DEFAULT_ADMIN_BODY_LIMIT, type: () => true }),
    async (req: Request, res: Response) => {
      let jobs: ReturnType<typeof parseExpectedJobsBody>;
      try {
        jobs = parseExpectedJobsBody(req.body);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        sendError(res, 400, error.code, error.message, error.issues);
        return;
      }
      const added = await recordExpectedJobs(deps.db, jobs, 'admin', now());
      logger.info({ accepted: jobs.length, added }, 'expected jobs recorded through the admin API');
      res.status(200).json({ accepted: jobs.length, added, already_expected: jobs.length - added });
    },
  );

  router.get(EXPECTED_JOBS_PATH, async (req: Request, res: Response) => {
    const state = typeof req.query.state === 'string' && req.query.state !== '' ? req.query.state : undefined;
    if (state !== undefined && !isExpectedJobState(state)) {
      sendError(res, 400, 'VALIDATION_BAD_REQUEST', `state must be one of ${EXPECTED_JOB_STATES.join(', ')}`);
      return;
    }
    const rawLimit = typeof req.query.limit === 'string' ? req.query.limit : undefined;
    const limit = rawLimit === undefined ? DEFAULT_LIST_LIMIT : Number(rawLimit);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      sendError(res, 400, 'VALIDATION_BAD_REQUEST', `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
      return;
    }
    const [entries, counts] = await Promise.all([
      listExpectedJobs(deps.db, { limit, ...(state !== undefined ? { state } : {}) }),
      countExpectedJobs(deps.db),
    ]);
    res.json({ counts, expected_jobs: entries });
  });

  // Body-parser failures (malformed JSON, too large) and storage failures, as JSON like every other answer.
  router.use(EXPECTED_JOBS_PATH, (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: unknown }).status;
    if (status === 400) {
      sendError(res, 400, 'VALIDATION_BAD_REQUEST', 'the body is not valid JSON');
      return;
    }
    if (status === 413) {
      sendError(res, 413, 'VALIDATION_BAD_REQUEST', `the body is over ${DEFAULT_ADMIN_BODY_LIMIT}`);
      return;
    }
    logger.error({ err: error }, 'admin API failure');
    sendError(res, 500, 'INTERNAL_ERROR', 'the ledger could not be read or written; retry later');
  });
  return router;
}
