/**
 * The options of `startReceiver` (start-receiver.ts), in a file of their own: the parts of serve
 * (parts/) read them too, and take them from here rather than back from the composition root.
 */
import type { Logger } from 'pino';
import type { HooksyncConfig } from '../config/load-config.js';
import type { ConfiguredDestination } from '../destinations/destination-type.js';
import type { DeliveryLimits } from '../receiver/delivery-limits.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { WatchDefinition } from '../watches/load-watches.js';
import type { WatchClock } from '../watches/watch-clock.js';

/** Knobs beyond the config, mostly for tests and benchmarks. */
export interface StartReceiverOptions {
  config: HooksyncConfig;
  logger?: Logger;
  /**
   * Clock in epoch ms for token times (iat, exp) and stored timestamps (default Date.now). The key set's
   * refresh and cooldown timers keep the real clock.
   */
  now?: () => number;
  fetch?: typeof globalThis.fetch;
  bodyLimitBytes?: number;
  /** Time for a request's headers, and for the whole request, in ms (defaults 10 s and 60 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Overrides of the delivery limits (budgets, rates, deadlines), over the config's. */
  limits?: Partial<DeliveryLimits>;
  toleranceSeconds?: number;
  /** Least ms between key-set refetches for unknown kids (default 30 s). */
  unknownKidCooldownMs?: number;
  /** Overrides the config's port (0 picks a free one). */
  port?: number;
  /** Also run reconcile on this cron schedule (croner syntax, e.g. "0 3 * * *"); runs never overlap. */
  reconcileCron?: string;
  /** Grace period of those runs, as `reconcile --older-than` (default 15 min). */
  reconcileOlderThanMs?: number;
  /**
   * Where jobs are written: `worker` (default), a thread of its own that commits and then derives the
   * normalized rows; `main`, this thread, rows in the storing transaction (an in-memory database, whose
   * connection no other thread can share, always uses `main`).
   */
  storeThread?: 'worker' | 'main';
  /**
   * The store worker's script (default: the built store-worker.js beside the job store module). Code run
   * from the TypeScript sources (tests) passes the built one: worker threads run JavaScript only.
   */
  storeWorkerUrl?: URL;
  /**
   * The destinations (loadDestinations) the dispatcher delivers to; their routing is recorded before the
   * first job is received. Default none: the routing is cleared, so no new events are written.
   */
  destinations?: readonly ConfiguredDestination[];
  /**
   * How often the dispatcher looks for due events when nothing woke it (default 500 ms): a stored job
   * wakes it at once, so this paces only retries and events written by other processes.
   */
  dispatchPollMs?: number;
  /** The watches (loadWatches) to run: each checks its rows every cycle, under a lease of its own. */
  watches?: readonly WatchDefinition[];
  /** The watches' clock (tests); default the real one. */
  watchClock?: WatchClock;
  /**
   * Tracing (startTelemetry, issue 40): deliveries, destination attempts, watch cycles and reconcile runs as
   * spans, outbound calls as client spans. Absent, the default, nothing is traced. The caller shuts it down.
   */
  telemetry?: Telemetry | undefined;
}
