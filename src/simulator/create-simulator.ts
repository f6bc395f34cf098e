/**
 * `createSimulator(options)`: the local stand-in for the service, in-process. It listens on 127.0.0.1
 * (port 0 by default) and returns its URL, master key and key-set URL, with handles for tests: the
 * delivery log, a wait for deliveries to settle, key rotation, the jobs, and close().
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { Jwks } from '../contract/jwk.js';
import { DEFAULT_RATE_LIMIT } from '../contract/limits.js';
import { JWKS_PATH } from '../contract/webhook-signature.js';
import { AccountBalance } from './account-balance.js';
import { ActivityTracker } from './activity-tracker.js';
import { createApiKeyRegistry } from './api-key-registry.js';
import { createSimApp } from './create-sim-app.js';
import { createSyntheticWorld } from './data/create-synthetic-world.js';
import type { JobChangeQuery } from './data/find-job-change.js';
import { createSeededRandom } from './data/seeded-random.js';
import { type EmploymentAnswer, EmploymentOverrides } from './employment-overrides.js';
import { JobRunner } from './job-runner.js';
import { microsToUsd, usdToMicros } from './price-table.js';
import { createAccountRateLimiter } from './rate-window.js';
import { preciseNow } from './service-date.js';
import { SigningKeyRing } from './signing-key-ring.js';
import { SimJobStore, type SimJobSummary } from './sim-job-store.js';
import {
  assertSimulatorOptions,
  DEFAULT_BALANCE_USD,
  DEFAULT_DELIVERY_TIMEOUT_MS,
  DEFAULT_REORDER_WINDOW_MS,
  DEFAULT_RETRY_BASE_MS,
  DEFAULT_ROTATION_GRACE_MS,
  DEFAULT_SIM_HOST,
  DEFAULT_SIM_SEED,
  type SimulatorOptions,
} from './simulator-options.js';
import { type DeliveryRecord, WebhookDispatcher } from './webhook-dispatcher.js';

/** How long {@link Simulator.waitForDeliveries} waits by default, in ms. */
export const DEFAULT_WAIT_TIMEOUT_MS = 10_000;

/** What to wait for: a number of delivery records, or (by default) nothing left in flight. */
export interface WaitForDeliveriesOptions {
  /** Resolve once at least this many attempts are recorded (instead of waiting for idleness). */
  count?: number;
  /** Give up after this many ms with an Error (default 10000). */
  timeoutMs?: number;
}

/** A running simulator. */
export interface Simulator {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** The master API key. */
  readonly apiKey: string;
  /** URL of GET /.well-known/jwks.json. */
  readonly jwksUrl: string;
  /** The current key set. */
  jwks(): Jwks;
  /** Makes a new key the signer; the old one stays in the key set for the grace period. */
  rotateKeys(): { kid: string; previousKid: string };
  /** Every delivery attempt so far, oldest first. */
  deliveries(): readonly DeliveryRecord[];
  /** Resolves with the attempts once nothing is in flight (async jobs, deliveries, retries) or `count` is reached. */
  waitForDeliveries(options?: WaitForDeliveriesOptions): Promise<readonly DeliveryRecord[]>;
  /** Every job: id, kind and status, in launch order. */
  jobs(): SimJobSummary[];
  /** The exact text the finder answers for `jobId`, or undefined. */
  jobText(jobId: string): string | undefined;
  /** What is left of the balance, in USD. */
  balanceUsd(): number;
  /**
   * Sets the Job Change answer for one contact, named as a request names it, until changed again or
   * cleared with `undefined` (POST /_sim/job-changes): a test moves a contact between two checks.
   */
  setJobChange(contact: JobChangeQuery, answer: EmploymentAnswer | undefined): void;
  /** Forgets jobs, deliveries and rate windows, and refills the balance (POST /_sim/reset). */
  reset(): void;
  /** Stops listening, aborts deliveries in flight and abandons running jobs. */
  close(): Promise<void>;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts a simulator. Throws TypeError for bad options, ValidationError for a sub-key rate above the master's. */
export async function createSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  assertSimulatorOptions(options);
  const now = options.now ?? preciseNow;
  const logger = options.logger ?? pino({ level: 'silent' });
  const seed = options.seed ?? DEFAULT_SIM_SEED;
  const rate = options.rate ?? DEFAULT_RATE_LIMIT;
  const apiKey = options.apiKey ?? randomUUID();
  const registry = createApiKeyRegistry(apiKey, rate, options.subKeys ?? []);
  const keyRing = new SigningKeyRing({
    graceMs: options.rotationGraceMs ?? DEFAULT_ROTATION_GRACE_MS,
    now,
    file: options.keysFile,
  });
  const synthetic = createSyntheticWorld({
    seed,
    ...(options.companyCount === undefined ? {} : { companyCount: options.companyCount }),
    ...(options.peoplePerCompany === undefined ? {} : { peoplePerCompany: options.peoplePerCompany }),
  });
  const employment = new EmploymentOverrides();
  const world = {
    revealCompany: (ip: string) => synthetic.revealCompany(ip),
    searchContacts: (request: Parameters<typeof synthetic.searchContacts>[0]) =>
      synthetic.searchContacts(request),
    jobChange: (request: JobChangeQuery) => employment.apply(request, synthetic.jobChange(request)),
  };
  const activity = new ActivityTracker();
  const store = new SimJobStore({ file: options.dbFile, logger });
  const balance = new AccountBalance(usdToMicros(options.balanceUsd ?? DEFAULT_BALANCE_USD));
  const limiter = createAccountRateLimiter(rate);
  const dispatcher = new WebhookDispatcher(
    {
      keyRing,
      now,
      fetch: options.fetch ?? globalThis.fetch,
      activity,
      faultRandom: createSeededRandom(seed, 'sim', 'delivery-faults'),
      shuffleRandom: createSeededRandom(seed, 'sim', 'reorder'),
      logger,
    },
    {
      retryBaseMs: options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS,
      deliveryTimeoutMs: options.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
      reuseToken: options.reuseToken ?? false,
      unsigned: options.unsigned ?? false,
      rotateEvery: options.rotateEvery,
      faults: options.faults ?? {},
      delayMs: options.delayMs ?? 0,
      reorderWindowMs:
        options.reorder === true ? (options.reorderWindowMs ?? DEFAULT_REORDER_WINDOW_MS) : undefined,
    },
  );
  const runner = new JobRunner({ store, balance, dispatcher, activity, now, logger }, options.asyncMs ?? 0);
  runner.finishRestored();

  const reset = (): void => {
    store.clear();
    dispatcher.clearRecords();
    limiter.clear();
    balance.reset();
  };
  const app = createSimApp({
    registry,
    limiter,
    world,
    runner,
    keyRing,
    dispatcher,
    store,
    employment,
    errorRate: options.errorRate ?? 0,
    errorRandom: createSeededRandom(seed, 'sim', 'finder-errors'),
    now,
    logger,
    reset,
  });

  const host = options.host ?? DEFAULT_SIM_HOST;
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${hostForUrl(host)}:${port}`;
  logger.info({ url }, 'simulator listening');

  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    apiKey,
    jwksUrl: `${url}${JWKS_PATH}`,
    jwks: () => keyRing.jwks(),
    rotateKeys: () => keyRing.rotate(),
    deliveries: () => dispatcher.records(),
    async waitForDeliveries(wait = {}) {
      const { count } = wait;
      const condition =
        count === undefined ? () => activity.active === 0 : () => dispatcher.records().length >= count;
      const what =
        count === undefined ? 'webhook deliveries to settle' : `${count} webhook delivery attempts`;
      await activity.waitFor(condition, wait.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, what);
      return dispatcher.records();
    },
    jobs: () => store.list(),
    jobText: (jobId) => store.get(jobId)?.text,
    balanceUsd: () => microsToUsd(balance.micros),
    setJobChange: (contact, answer) => employment.set(contact, answer),
    reset,
    close() {
      closed ??= (async () => {
        dispatcher.close();
        runner.close();
        activity.close(new Error('simulator closed'));
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}
