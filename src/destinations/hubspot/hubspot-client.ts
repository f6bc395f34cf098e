/**
 * The HubSpot calls a destination makes, over one paced request core: every call waits for its slot in the
 * destination's shared pace first (search: its own window), counts itself, reads the daily allowance from the headers, and turns an
 * answer that is not a success into a HubSpotError carrying what to do about it. The token only ever goes
 * into the Authorization header.
 */
import { parseRetryAfterSeconds } from '../../client/retry-after.js';
import type { Pace } from '../shared-pace.js';
import { classifyTrouble, dailyRemaining, type HubSpotTrouble } from './hubspot-answer.js';

/** HubSpot's API address; configurable, as the versioned paths move to dated ones. */
export const DEFAULT_HUBSPOT_BASE_URL = 'https://api.hubapi.com';
/** Search calls per second: under HubSpot's 5, as its own SDK's search limiter does. */
export const SEARCH_RATE = { requests: 4, perMs: 1_000 } as const;
/** Inputs per batch call: HubSpot's limit for every object batch endpoint. */
export const HUBSPOT_BATCH_LIMIT = 100;

/** A call that did not succeed, with what to do about it. */
export class HubSpotError extends Error {
  readonly status: number | null;
  readonly trouble: HubSpotTrouble;
  constructor(status: number | null, trouble: HubSpotTrouble) {
    super(trouble.error);
    this.name = 'HubSpotError';
    this.status = status;
    this.trouble = trouble;
  }
}

/** What the calls came to since the destination started (for metrics and `destinations list`). */
export interface HubSpotCallStats {
  calls: number;
  rateLimited: Record<string, number>;
  dailyRemaining: number | undefined;
}

/** Collaborators and settings of the client. */
export interface HubSpotClientConfig {
  readonly baseUrl: string;
  readonly token: string;
  /** The environment variable the token came from, to name it in a 401's message. */
  readonly tokenEnv: string | undefined;
  readonly fetch: typeof globalThis.fetch;
  /** The destination's rate, shared by every process working for it. */
  readonly pace: Pace;
  /** Search's own, lower limit (about 5 per second, not counted in the 10-second one). */
  readonly searchPace: Pace;
  readonly now: () => number;
  readonly stats: HubSpotCallStats;
}

/** The answer of a successful call (2xx, 207 included). */
export interface HubSpotAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** A paced, counted HubSpot client. */
export interface HubSpotClient {
  request(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal): Promise<HubSpotAnswer>;
}

/** Creates the client. */
export function createHubSpotClient(config: HubSpotClientConfig): HubSpotClient {
  const base = config.baseUrl.replace(/\/+$/, '');
  return {
    async request(method, path, body, signal) {
      await (path.endsWith('/search') ? config.searchPace : config.pace).wait(signal);
      config.stats.calls += 1;
      let response: Response;
      try {
        response = await config.fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${config.token}`,
            accept: 'application/json',
            'user-agent': 'hooksync-destinations',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          redirect: 'manual',
          signal,
        });
      } catch (error) {
        const code = (error as { cause?: { code?: unknown } }).cause?.code;
        const what = signal.aborted
          ? 'timed out'
          : `network error${typeof code === 'string' ? ` (${code})` : ''}`;
        throw new HubSpotError(null, { kind: 'retry', error: what });
      }
      const text = await response.text();
      const left = dailyRemaining(response.headers);
      if (left !== undefined) config.stats.dailyRemaining = left;
      if (response.status >= 200 && response.status < 300) {
        let parsed: unknown = null;
        try {
          parsed = text === '' ? null : JSON.parse(text);
        } catch {
          throw new HubSpotError(response.status, { kind: 'retry', error: 'HubSpot answered with no JSON' });
        }
        return { status: response.status, body: parsed };
      }
      const seconds = parseRetryAfterSeconds(response.headers.get('retry-after'), undefined, config.now());
      const trouble = classifyTrouble({
        status: response.status,
        text,
        retryAfterMs: seconds === undefined ? undefined : Math.round(seconds * 1000),
        tokenEnv: config.tokenEnv,
      });
      if (trouble.kind === 'wait')
        config.stats.rateLimited[trouble.policy] = (config.stats.rateLimited[trouble.policy] ?? 0) + 1;
      throw new HubSpotError(response.status, trouble);
    },
  };
}
