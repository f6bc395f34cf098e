/**
 * Throttles guessing of the admin token. Failed attempts (a wrong bearer token on /admin or /ui, a wrong
 * token at the sign-in form) are counted per client address in a fixed window: past the per-address limit
 * that address is refused (429) without its guess being checked, while every other address keeps going.
 * A global ceiling bounds the guesses checked from all addresses together; past it, only addresses with
 * no failure in the window are still checked, so a distributed flood cannot lock a clean admin out either.
 */
import { type Logger, pino } from 'pino';

/** Failed attempts one address may make per window. */
export const DEFAULT_FAILURES_PER_ADDRESS = 10;
/** Failed attempts of all addresses together per window before only clean addresses are checked. */
export const DEFAULT_GLOBAL_FAILURES = 100;
/** Length of the counting window. */
export const DEFAULT_THROTTLE_WINDOW_MS = 60_000;
/** Addresses remembered at once (bounds memory under a flood from many addresses). */
export const DEFAULT_MAX_TRACKED_ADDRESSES = 10_000;

/** Which surface an attempt was made on. */
export type AuthSurface = 'admin_api' | 'status_page';
/** Why an attempt was refused: a wrong token, or refused unchecked while throttled. */
export type AuthRefusal = 'wrong_token' | 'throttled';

/** Knobs of {@link createAuthThrottle}. */
export interface AuthThrottleOptions {
  /** Default {@link DEFAULT_FAILURES_PER_ADDRESS}. */
  failuresPerAddress?: number;
  /** Default {@link DEFAULT_GLOBAL_FAILURES}. */
  globalFailures?: number;
  /** Default {@link DEFAULT_THROTTLE_WINDOW_MS}. */
  windowMs?: number;
  /** Default {@link DEFAULT_MAX_TRACKED_ADDRESSES}. */
  maxTrackedAddresses?: number;
  /** Clock in epoch ms (default Date.now). */
  now?: () => number;
  /** Failures and throttling are logged at warn (default silent). */
  logger?: Logger;
  /** Called for each refusal, e.g. to count it in /metrics. */
  onRefused?: (surface: AuthSurface, refusal: AuthRefusal) => void;
}

/** The throttle shared by the admin API and the status page of one receiver. */
export interface AuthThrottle {
  /** 0 when `address` may try now; else the seconds until it may (for Retry-After). */
  retryAfterSeconds(address: string): number;
  /** Records a wrong token from `address`. */
  recordFailure(address: string, surface: AuthSurface): void;
  /** Records an attempt refused unchecked because `address` is throttled. */
  recordThrottled(address: string, surface: AuthSurface): void;
}

interface Window {
  startMs: number;
  failures: number;
  /** Whether "throttled" was logged for this address in this window (one line per window, not per hit). */
  logged: boolean;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 1) throw new TypeError(`${name} must be a positive integer`);
  return n;
}

/** Creates a throttle; one per receiver, shared by its admin surfaces. */
export function createAuthThrottle(options: AuthThrottleOptions = {}): AuthThrottle {
  const perAddress = positiveInteger(
    'failuresPerAddress',
    options.failuresPerAddress,
    DEFAULT_FAILURES_PER_ADDRESS,
  );
  const ceiling = positiveInteger('globalFailures', options.globalFailures, DEFAULT_GLOBAL_FAILURES);
  const windowMs = positiveInteger('windowMs', options.windowMs, DEFAULT_THROTTLE_WINDOW_MS);
  const maxTracked = positiveInteger(
    'maxTrackedAddresses',
    options.maxTrackedAddresses,
    DEFAULT_MAX_TRACKED_ADDRESSES,
  );
  const now = options.now ?? Date.now;
  const logger = options.logger ?? pino({ level: 'silent' });
  const addresses = new Map<string, Window>();
  const global: Window = { startMs: Number.NEGATIVE_INFINITY, failures: 0, logged: false };

  const current = (window: Window, nowMs: number): Window => {
    if (nowMs - window.startMs >= windowMs || nowMs < window.startMs) {
      window.startMs = nowMs;
      window.failures = 0;
      window.logged = false;
    }
    return window;
  };
  const windowOf = (address: string, nowMs: number): Window | undefined => {
    const window = addresses.get(address);
    if (window === undefined) return undefined;
    if (nowMs - window.startMs >= windowMs || nowMs < window.startMs) {
      addresses.delete(address);
      return undefined;
    }
    return window;
  };
  const secondsLeft = (window: Window, nowMs: number): number =>
    Math.max(1, Math.ceil((window.startMs + windowMs - nowMs) / 1000));

  return {
    retryAfterSeconds(address) {
      const nowMs = now();
      const own = windowOf(address, nowMs);
      if (own === undefined) return 0;
      if (own.failures >= perAddress) return secondsLeft(own, nowMs);
      if (current(global, nowMs).failures >= ceiling) return secondsLeft(global, nowMs);
      return 0;
    },
    recordFailure(address, surface) {
      const nowMs = now();
      let own = windowOf(address, nowMs);
      if (own === undefined) {
        if (addresses.size >= maxTracked) {
          for (const [key, window] of addresses)
            if (nowMs - window.startMs >= windowMs) addresses.delete(key);
          // Still full: forget the oldest; at worst it gets a fresh window, and the global ceiling still holds.
          if (addresses.size >= maxTracked) addresses.delete(addresses.keys().next().value as string);
        }
        own = { startMs: nowMs, failures: 0, logged: false };
        addresses.set(address, own);
      }
      own.failures += 1;
      current(global, nowMs).failures += 1;
      logger.warn({ address, surface, failures: own.failures }, 'admin token refused');
      options.onRefused?.(surface, 'wrong_token');
    },
    recordThrottled(address, surface) {
      const nowMs = now();
      const own = windowOf(address, nowMs);
      const ownThrottled = own !== undefined && own.failures >= perAddress;
      const window = ownThrottled ? own : current(global, nowMs);
      if (!window.logged) {
        window.logged = true;
        logger.warn(
          {
            address,
            surface,
            scope: ownThrottled ? 'address' : 'global',
            retryAfterSeconds: secondsLeft(window, nowMs),
          },
          'admin sign-in throttled: too many wrong tokens',
        );
      }
      options.onRefused?.(surface, 'throttled');
    },
  };
}

/** The client address of a request's socket, IPv4-mapped IPv6 written as plain IPv4. */
export function clientAddress(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'unknown';
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.')
    ? remoteAddress.slice(7)
    : remoteAddress;
}
