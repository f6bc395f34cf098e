/**
 * The process-wide cache of webhook verification keys (interface, Events rule 8: keys come from
 * GET /.well-known/jwks.json and are selected by kid).
 *
 * Semantics of an unknown kid, so that a key published moments before its first use is picked up within
 * the cooldown (issue 19), and forged kids cannot hammer the key set:
 * - if no kid-triggered fetch ran within the cooldown, one runs now (concurrent lookups share it, and a
 *   lookup arriving while a fetch is in flight waits for it) and the kid is looked up again;
 * - a kid still not held is `unknown-transient`: KEYSET_UNAVAILABLE when the latest fetch failed,
 *   SIGNATURE_UNKNOWN_KID otherwise. The receiver answers 500 and the sender retries (Events rule 2); a
 *   retry after the cooldown triggers the next fetch. Never final: the service retries only five times,
 *   and a refused callback of a genuine new key would be lost.
 * Refresh is both periodic (`start()`, an unref'd timer; a failed refresh is retried after the cooldown)
 * and lazy (a lookup on a set older than the refresh interval refreshes in the background). A failed
 * refresh keeps the keys already held (stale-if-error); a successful one replaces the set, so a key the
 * service withdraws stops verifying.
 */
import { importJWK } from 'jose';
import { type Logger, pino } from 'pino';
import { SignatureError } from '../errors.js';
import { fetchKeySet } from './fetch-key-set.js';
import type { KeyLookup, KeySource, VerificationKey } from './key-source.js';
import { type Ed25519PublicJwk, parseEd25519Jwks } from './parse-ed25519-jwks.js';

/** Deadline of one key-set fetch. */
export const DEFAULT_KEY_SET_TIMEOUT_MS = 5000;
/** Age after which the key set is refreshed. */
export const DEFAULT_KEY_SET_REFRESH_INTERVAL_MS = 10 * 60 * 1000;
/** Least time between two fetches triggered by unknown kids. */
export const DEFAULT_UNKNOWN_KID_COOLDOWN_MS = 30_000;

/** Options of {@link createKeySetCache}. */
export interface KeySetCacheOptions {
  /** Absolute URL of the key set, normally `{base_url}` + JWKS_PATH. */
  url: string | URL;
  fetch?: typeof globalThis.fetch;
  /** Clock in epoch milliseconds; default Date.now. */
  now?: () => number;
  /** Deadline of one fetch in ms; default {@link DEFAULT_KEY_SET_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Refresh period in ms; default {@link DEFAULT_KEY_SET_REFRESH_INTERVAL_MS}. */
  refreshIntervalMs?: number;
  /** Least ms between unknown-kid refetches; default {@link DEFAULT_UNKNOWN_KID_COOLDOWN_MS}. */
  unknownKidCooldownMs?: number;
  /** Default silent. */
  logger?: Logger;
}

/** Counters and state of the cache, for /readyz and metrics. */
export interface KeySetCacheStats {
  /** True once keys are held (they keep verifying through later fetch failures). */
  ready: boolean;
  kids: string[];
  fetches: number;
  failures: number;
  lastSuccessAt: Date | undefined;
  lastFailureAt: Date | undefined;
  lastError: string | undefined;
}

interface HeldKey {
  x: string;
  key: VerificationKey;
}

/** Creates the key-set cache; call `load()` before serving and `start()` for periodic refresh. */
export function createKeySetCache(options: KeySetCacheOptions): KeySetCache {
  return new KeySetCache(options);
}

/** Webhook verification keys by kid, fetched, refreshed and rate-guarded as the module comment says. */
export class KeySetCache implements KeySource {
  readonly #url: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #refreshIntervalMs: number;
  readonly #cooldownMs: number;
  readonly #logger: Logger;
  #keys = new Map<string, HeldKey>();
  #inflight: Promise<void> | undefined;
  #fetches = 0;
  #failures = 0;
  #lastAttemptStartedAt: number | undefined;
  #lastAttemptFailed = false;
  #lastSuccessAt: number | undefined;
  #lastFailureAt: number | undefined;
  #lastError: string | undefined;
  #lastKidFetchAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(options: KeySetCacheOptions) {
    const url = parseUrl(options.url);
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new TypeError('KeySetCache: url must be an absolute http(s) URL');
    }
    this.#url = url.href;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = positive(options.timeoutMs, DEFAULT_KEY_SET_TIMEOUT_MS, 'timeoutMs');
    this.#refreshIntervalMs = positive(
      options.refreshIntervalMs,
      DEFAULT_KEY_SET_REFRESH_INTERVAL_MS,
      'refreshIntervalMs',
    );
    this.#cooldownMs = positive(
      options.unknownKidCooldownMs,
      DEFAULT_UNKNOWN_KID_COOLDOWN_MS,
      'unknownKidCooldownMs',
    );
    this.#logger = options.logger ?? pino({ enabled: false });
  }

  /** True while keys are held. */
  get ready(): boolean {
    return this.#keys.size > 0;
  }

  /** Fetches the key set; throws SignatureError KEYSET_UNAVAILABLE only when it fails and no keys are held. */
  async load(): Promise<void> {
    try {
      await this.refresh();
    } catch (error) {
      if (!this.ready) throw error;
    }
  }

  /** Fetches the key set now (joining a fetch in flight); rejects with SignatureError when it fails. */
  refresh(): Promise<void> {
    if (this.#inflight) return this.#inflight;
    this.#lastAttemptStartedAt = this.#now();
    this.#fetches += 1;
    const attempt = this.#fetchAndReplace().finally(() => {
      this.#inflight = undefined;
    });
    this.#inflight = attempt;
    return attempt;
  }

  /** Starts the periodic refresh (idempotent); the timer never keeps the process alive. Safe after a failed load. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    // Without keys (load failed) the next try comes after the cooldown, not a whole interval.
    this.#schedule(
      this.ready ? this.#refreshIntervalMs : Math.min(this.#refreshIntervalMs, this.#cooldownMs),
    );
  }

  /** Stops the periodic refresh. */
  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Resolves a kid to its key, or says whether its absence is transient or final. */
  async getKey(kid: string): Promise<KeyLookup> {
    if (typeof kid !== 'string') throw new TypeError('getKey: kid must be a string');
    const held = this.#keys.get(kid);
    if (held) {
      this.#refreshIfStale();
      return { status: 'found', kid, key: held.key };
    }
    if (this.#inflight) await settle(this.#inflight);
    const joined = this.#keys.get(kid);
    if (joined) return { status: 'found', kid, key: joined.key };
    const now = this.#now();
    if (this.#lastKidFetchAt === undefined || now - this.#lastKidFetchAt >= this.#cooldownMs) {
      this.#lastKidFetchAt = now;
      this.#logger.info({ kid: kid.slice(0, 80) }, 'unknown webhook key id, fetching the key set');
      await settle(this.refresh());
      const fetched = this.#keys.get(kid);
      if (fetched) return { status: 'found', kid, key: fetched.key };
    }
    const reason = this.#lastAttemptFailed ? 'KEYSET_UNAVAILABLE' : 'SIGNATURE_UNKNOWN_KID';
    return { status: 'unknown-transient', kid, reason };
  }

  /** A snapshot of the counters. */
  stats(): KeySetCacheStats {
    return {
      ready: this.ready,
      kids: [...this.#keys.keys()],
      fetches: this.#fetches,
      failures: this.#failures,
      lastSuccessAt: toDate(this.#lastSuccessAt),
      lastFailureAt: toDate(this.#lastFailureAt),
      lastError: this.#lastError,
    };
  }

  async #fetchAndReplace(): Promise<void> {
    try {
      const { keys, skipped } = parseEd25519Jwks(
        await fetchKeySet({ url: this.#url, fetch: this.#fetch, timeoutMs: this.#timeoutMs }),
      );
      for (const { kid, reason } of skipped) this.#logger.debug({ kid, reason }, 'key set entry skipped');
      const next = new Map<string, HeldKey>();
      for (const jwk of keys) {
        const held = await this.#importKey(jwk);
        if (held) next.set(jwk.kid, held);
      }
      if (next.size === 0) {
        throw new SignatureError('KEYSET_UNAVAILABLE', 'key set holds no usable Ed25519 key', {
          transient: true,
        });
      }
      this.#keys = next;
      this.#lastSuccessAt = this.#now();
      this.#lastAttemptFailed = false;
      this.#logger.debug({ kids: [...next.keys()] }, 'key set loaded');
    } catch (error) {
      this.#failures += 1;
      this.#lastAttemptFailed = true;
      this.#lastFailureAt = this.#now();
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#logger.warn({ err: error, keysHeld: this.#keys.size }, 'key set fetch failed');
      throw error instanceof SignatureError
        ? error
        : new SignatureError('KEYSET_UNAVAILABLE', this.#lastError, { cause: error, transient: true });
    }
  }

  /** Imports a key once: an unchanged kid keeps the key object it already has. */
  async #importKey(jwk: Ed25519PublicJwk): Promise<HeldKey | undefined> {
    const previous = this.#keys.get(jwk.kid);
    if (previous?.x === jwk.x) return previous;
    try {
      const key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }, 'EdDSA');
      return { x: jwk.x, key: key as VerificationKey };
    } catch (error) {
      this.#logger.warn({ kid: jwk.kid, err: error }, 'key set entry could not be imported');
      return undefined;
    }
  }

  #refreshIfStale(): void {
    const last = this.#lastAttemptStartedAt;
    if (this.#inflight || last === undefined || this.#now() - last < this.#refreshIntervalMs) return;
    void settle(this.refresh());
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(async () => {
      const ok = await this.refresh().then(
        () => true,
        () => false,
      );
      if (this.#running)
        this.#schedule(ok ? this.#refreshIntervalMs : Math.min(this.#refreshIntervalMs, this.#cooldownMs));
    }, delayMs);
    this.#timer.unref();
  }
}

function settle(promise: Promise<void>): Promise<void> {
  return promise.then(
    () => undefined,
    () => undefined,
  );
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new TypeError(`KeySetCache: ${name} must be a positive number`);
  return value;
}

function parseUrl(value: string | URL): URL | undefined {
  if (value instanceof URL) return value;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function toDate(ms: number | undefined): Date | undefined {
  return ms === undefined ? undefined : new Date(ms);
}
