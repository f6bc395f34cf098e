/**
 * The receiver's limits in one place (issue 15 and 19), each with its default: what a delivery may
 * weigh, how long it may take, how much memory and quarantine space bodies may use, and how many finder
 * calls unsigned callbacks may cause.
 */
import { DEFAULT_BODY_BUDGET_BYTES } from './create-body-budget.js';
import {
  DEFAULT_QUARANTINE_BUDGET_BYTES,
  DEFAULT_QUARANTINE_PREFIX_BYTES,
  DEFAULT_QUARANTINE_RATE_PER_MINUTE,
} from './create-quarantine-policy.js';
import {
  DEFAULT_UNSIGNED_FETCH_UNKNOWN_PER_MINUTE,
  DEFAULT_UNSIGNED_FETCH_WAIT_MS,
} from './create-unsigned-fetcher.js';
import {
  DEFAULT_BODY_DEADLINE_BASE_MS,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_BODY_MIN_BYTES_PER_SECOND,
} from './read-body.js';

/**
 * How long a verified delivery waits for room in the body budget before its 429, ms (issue 42): as long as
 * an unsigned callback waits for its fetch. Under a burst of pages this takes more of them than answering
 * 429 at once, which the senders retry at once (bench/RESULTS.md).
 */
export const DEFAULT_BODY_BUDGET_WAIT_MS = 2_000;
/** Unsigned deliveries (reading their prefix) in progress at once; beyond, 429. */
export const DEFAULT_MAX_UNVERIFIED = 64;
/** How long close() waits for background work (unsigned fetches), in ms. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** Every limit of the delivery handler. */
export interface DeliveryLimits {
  /** Largest body accepted, bytes (413 above). */
  bodyLimitBytes: number;
  /** Memory for bodies in flight, bytes (a wait for room, then 429 + Retry-After above). */
  bodyBudgetBytes: number;
  /** How long a verified delivery waits for room in that budget, ms (0: 429 at once). */
  bodyBudgetWaitMs: number;
  /** Bytes read of an unsigned body, and kept of a body no verified token vouches for. */
  unsignedPrefixBytes: number;
  /** Unsigned deliveries in progress at once. */
  maxUnverified: number;
  /** A body gets this many ms, plus its declared length at the minimum rate. */
  bodyDeadlineBaseMs: number;
  /** Slowest average body rate, bytes per second. */
  bodyMinBytesPerSecond: number;
  /** Total bytes of quarantined bodies. */
  quarantineBudgetBytes: number;
  /** Refusals of one reason stored per minute. */
  quarantineRatePerMinute: number;
  /** Unsigned callbacks for ids not in the ledger fetched per minute. */
  unsignedFetchUnknownPerMinute: number;
  /** How long a request waits for its unsigned fetch, ms. */
  unsignedFetchWaitMs: number;
  /** How long close() waits for background work, ms. */
  shutdownGraceMs: number;
}

/** The defaults, frozen. */
export const DEFAULT_DELIVERY_LIMITS: Readonly<DeliveryLimits> = Object.freeze({
  bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
  bodyBudgetBytes: DEFAULT_BODY_BUDGET_BYTES,
  bodyBudgetWaitMs: DEFAULT_BODY_BUDGET_WAIT_MS,
  unsignedPrefixBytes: DEFAULT_QUARANTINE_PREFIX_BYTES,
  maxUnverified: DEFAULT_MAX_UNVERIFIED,
  bodyDeadlineBaseMs: DEFAULT_BODY_DEADLINE_BASE_MS,
  bodyMinBytesPerSecond: DEFAULT_BODY_MIN_BYTES_PER_SECOND,
  quarantineBudgetBytes: DEFAULT_QUARANTINE_BUDGET_BYTES,
  quarantineRatePerMinute: DEFAULT_QUARANTINE_RATE_PER_MINUTE,
  unsignedFetchUnknownPerMinute: DEFAULT_UNSIGNED_FETCH_UNKNOWN_PER_MINUTE,
  unsignedFetchWaitMs: DEFAULT_UNSIGNED_FETCH_WAIT_MS,
  shutdownGraceMs: DEFAULT_SHUTDOWN_GRACE_MS,
});

/** The defaults with `overrides` applied; throws TypeError for a value that is not a non-negative number. */
export function resolveDeliveryLimits(overrides: Partial<DeliveryLimits> = {}): DeliveryLimits {
  const limits = { ...DEFAULT_DELIVERY_LIMITS };
  for (const [name, value] of Object.entries(overrides) as Array<[keyof DeliveryLimits, unknown]>) {
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new TypeError(`delivery limits: ${name} must be a non-negative number`);
    }
    limits[name] = value;
  }
  return limits;
}
