/**
 * The simulator's HTTP surface on express 5: every endpoint of the interface plus the two launchers it
 * does not show, the /_sim/* controls (master key), and the interface's error object for everything
 * else (any other path or method: 404 ROUTING_INVALID_PATH_OR_METHOD).
 */
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { JWKS_PATH } from '../contract/webhook-signature.js';
import { isErrorCode, ServiceError, ValidationError } from '../errors.js';
import type { ApiKeyRegistry } from './api-key-registry.js';
import type { JobChangeQuery } from './data/find-job-change.js';
import type { EmploymentAnswer, EmploymentOverrides } from './employment-overrides.js';
import { createFinderHandler, type FinderDeps } from './finder-routes.js';
import type { JobRunner } from './job-runner.js';
import { createLauncherHandlers, LAUNCHER_PATHS, type SimWorld } from './launcher-routes.js';
import type { AccountRateLimiter } from './rate-window.js';
import { sendError } from './send-error.js';
import type { SigningKeyRing } from './signing-key-ring.js';
import { limitRate, readJsonBody, requireApiKey } from './sim-middleware.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';

/** Largest launcher body read, in bytes; larger ones are refused with VALIDATION_BAD_REQUEST. */
export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;

/** Paths of the simulator's own controls. */
export const SIM_CONTROL_PATHS = Object.freeze({
  deliveries: '/_sim/deliveries',
  jobs: '/_sim/jobs',
  rotateKeys: '/_sim/rotate-keys',
  reset: '/_sim/reset',
  jobChanges: '/_sim/job-changes',
});

/** Everything the HTTP surface works with. */
export interface SimAppDeps extends FinderDeps {
  readonly registry: ApiKeyRegistry;
  readonly limiter: AccountRateLimiter;
  readonly world: SimWorld;
  /** POST /_sim/job-changes: the Job Change answers a test sets by hand. */
  readonly employment: EmploymentOverrides;
  readonly runner: JobRunner;
  readonly keyRing: SigningKeyRing;
  readonly dispatcher: WebhookDispatcher;
  readonly now: () => number;
  readonly logger: Logger;
  /** POST /_sim/reset: forget jobs, deliveries and rate windows; refill the balance. */
  readonly reset: () => void;
}

/** A body-parser failure (an http-errors object): its status and type; undefined for anything else. */
function bodyReadFailure(error: unknown): { status: number; type: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, type } = error as { status?: unknown; type?: unknown };
  return typeof status === 'number' && typeof type === 'string' ? { status, type } : undefined;
}

/** Builds the express app (not listening). */
export function createSimApp(deps: SimAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  const key = requireApiKey(deps.registry);
  const masterKey = requireApiKey(deps.registry, { master: true });
  const rate = limitRate(deps.limiter, deps.now);
  const body = express.raw({ type: () => true, limit: DEFAULT_BODY_LIMIT_BYTES });
  const launchers = createLauncherHandlers(deps.world, deps.runner);

  const routes: [method: 'get' | 'post', path: string, handlers: RequestHandler[]][] = [
    ['post', LAUNCHER_PATHS.company_reveal, [key, body, launchers.company_reveal]],
    ['post', LAUNCHER_PATHS.search_contact, [key, rate, body, launchers.search_contact]],
    ['post', LAUNCHER_PATHS.job_change, [key, rate, body, launchers.job_change]],
    ['get', LAUNCHER_PATHS.search_contact, [key, rate, createFinderHandler('search_contact', deps)]],
    ['get', LAUNCHER_PATHS.job_change, [key, rate, createFinderHandler('job_change', deps)]],
    ['get', '/v1/api-keys', [masterKey, (_req, res) => void res.json({ api_keys: deps.registry.list() })]],
    ['get', JWKS_PATH, [(_req, res) => void res.json(deps.keyRing.jwks())]],
    [
      'get',
      SIM_CONTROL_PATHS.deliveries,
      [masterKey, (_req, res) => void res.json({ deliveries: deps.dispatcher.records() })],
    ],
    ['get', SIM_CONTROL_PATHS.jobs, [masterKey, (_req, res) => void res.json({ jobs: deps.store.list() })]],
    [
      'post',
      SIM_CONTROL_PATHS.rotateKeys,
      [
        masterKey,
        (_req, res) => {
          const { kid, previousKid } = deps.keyRing.rotate();
          res.json({ kid, previous_kid: previousKid });
        },
      ],
    ],
    [
      'post',
      SIM_CONTROL_PATHS.jobChanges,
      [
        masterKey,
        body,
        (req, res) => {
          const input = readJsonBody(req) as { contact?: unknown; answer?: unknown } | null;
          try {
            deps.employment.set(
              (input?.contact ?? {}) as JobChangeQuery,
              (input?.answer ?? undefined) as EmploymentAnswer | undefined,
            );
          } catch (error) {
            res.status(400).json({ error: (error as Error).message });
            return;
          }
          res.json({ set: input?.answer !== null && input?.answer !== undefined });
        },
      ],
    ],
    [
      'post',
      SIM_CONTROL_PATHS.reset,
      [
        masterKey,
        (_req, res) => {
          deps.reset();
          res.json({ reset: true });
        },
      ],
    ],
  ];

  // Only the listed method and path pairs exist: express would otherwise answer HEAD and OPTIONS itself.
  const known = new Set(routes.map(([method, path]) => `${method.toUpperCase()} ${path}`));
  app.use((req, res, next) => {
    if (known.has(`${req.method} ${req.path}`)) next();
    else sendError(res, 'ROUTING_INVALID_PATH_OR_METHOD', `No endpoint ${req.method} ${req.path}`);
  });
  for (const [method, path, handlers] of routes) app[method](path, ...handlers);

  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    if (error instanceof ValidationError) {
      sendError(res, error.code, error.message, error.issues);
      return;
    }
    if (error instanceof ServiceError && isErrorCode(error.code)) {
      sendError(res, error.code, error.message, error.detail);
      return;
    }
    const failure = bodyReadFailure(error);
    if (failure !== undefined && failure.status < 500) {
      const message =
        failure.type === 'entity.too.large'
          ? `Request body larger than ${DEFAULT_BODY_LIMIT_BYTES} bytes`
          : `Unreadable request body: ${(error as Error).message}`;
      sendError(res, 'VALIDATION_BAD_REQUEST', message);
      return;
    }
    deps.logger.error({ err: error }, 'simulator request failed');
    sendError(res, 'INTERNAL_UNCLASSIFIED_ERROR', 'Internal error');
  };
  app.use(onError);
  return app;
}
