/**
 * The simulator's account keys (Authentication, API key record): one master key and any number of
 * sub-keys, each with its own rate. Keys are opaque strings; the interface shows UUIDs but never requires
 * a client to parse them.
 */

import type { ApiKeyRecord } from '../contract/api-keys.js';
import type { RateLimit } from '../contract/rate-limit.js';
import { ValidationError } from '../errors.js';

/** The contract's API key record, re-exported for the simulator's callers. */
export type { ApiKeyRecord };

/** A sub-key to create: its key and, optionally, its own rate (default: the master key's). */
export interface SubKeySpec {
  readonly apiKey: string;
  readonly rate?: RateLimit | undefined;
  readonly notes?: string | undefined;
}

/** The keys of the simulated account, looked up by the x-api-key header. */
export interface ApiKeyRegistry {
  readonly master: ApiKeyRecord;
  /** The record of `apiKey`, or undefined for a key the account does not have. */
  find(apiKey: string): ApiKeyRecord | undefined;
  /** Every record, master first. */
  list(): readonly ApiKeyRecord[];
}

const RATE_PATTERN = /^(\d+)\/(\d+)$/;

/** Parses `PER_INTERVAL/INTERVAL_SECONDS` (e.g. `50/60`); throws TypeError on anything else. */
export function parseRateSpec(text: string): RateLimit {
  const match = RATE_PATTERN.exec(text.trim());
  const perInterval = Number(match?.[1]);
  const intervalSeconds = Number(match?.[2]);
  if (!match || !Number.isSafeInteger(perInterval) || perInterval < 1 || intervalSeconds < 1) {
    throw new TypeError(
      `a rate is PER_INTERVAL/INTERVAL_SECONDS with positive integers (e.g. 50/60), got "${text}"`,
    );
  }
  return { perInterval, intervalSeconds };
}

/**
 * Parses `KEY[:PER_INTERVAL/INTERVAL_SECONDS]`. The rate is split off at the last colon only when what
 * follows looks like a rate, so a key may itself hold colons.
 */
export function parseSubKeySpec(text: string): SubKeySpec {
  const colon = text.lastIndexOf(':');
  const tail = colon >= 0 ? text.slice(colon + 1) : '';
  const hasRate = colon >= 0 && RATE_PATTERN.test(tail);
  const apiKey = hasRate ? text.slice(0, colon) : text;
  if (apiKey.trim() === '') throw new TypeError(`a sub-key needs a non-empty key, got "${text}"`);
  return hasRate ? { apiKey, rate: parseRateSpec(tail) } : { apiKey };
}

/** True when `rate` allows more requests per second than `limit` (compared exactly, in integers). */
export function isRateAbove(rate: RateLimit, limit: RateLimit): boolean {
  return rate.perInterval * limit.intervalSeconds > limit.perInterval * rate.intervalSeconds;
}

/**
 * Builds the key registry. A sub-key whose rate exceeds the master's is refused with
 * VALIDATION_SUBKEY_RATE_EXCEEDS_MASTER (Limits, per-key rate); a duplicate key is a TypeError.
 */
export function createApiKeyRegistry(
  masterKey: string,
  masterRate: RateLimit,
  subKeys: readonly SubKeySpec[],
): ApiKeyRegistry {
  if (masterKey.trim() === '') throw new TypeError('the master API key must not be empty');
  const master: ApiKeyRecord = Object.freeze({
    api_key: masterKey,
    active: true,
    notes: 'master key',
    master: true,
    per_interval: masterRate.perInterval,
    interval_seconds: masterRate.intervalSeconds,
  });
  const records = new Map<string, ApiKeyRecord>([[masterKey, master]]);
  subKeys.forEach((spec, index) => {
    if (records.has(spec.apiKey)) throw new TypeError(`API key listed twice: sub-key #${index + 1}`);
    const rate = spec.rate ?? masterRate;
    if (isRateAbove(rate, masterRate)) {
      throw new ValidationError(
        'VALIDATION_SUBKEY_RATE_EXCEEDS_MASTER',
        `sub-key #${index + 1} rate ${rate.perInterval}/${rate.intervalSeconds}s exceeds the master key rate ` +
          `${masterRate.perInterval}/${masterRate.intervalSeconds}s`,
      );
    }
    records.set(
      spec.apiKey,
      Object.freeze({
        api_key: spec.apiKey,
        active: true,
        notes: spec.notes ?? `sub-key ${index + 1}`,
        master: false,
        per_interval: rate.perInterval,
        interval_seconds: rate.intervalSeconds,
      }),
    );
  });
  const all = Object.freeze([...records.values()]);
  return {
    master,
    find: (apiKey) => records.get(apiKey),
    list: () => all,
  };
}
