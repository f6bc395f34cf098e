/**
 * The HubSpot client: the CRM core's HTTP client (`crm/crm-http.ts`) with HubSpot's address, its bearer
 * token, its paces (the destination's shared one; search its own window), its answers' classification
 * (`hubspot-answer.ts`), the CRMs' default retry policy, and the daily allowance its headers report. The token only ever goes
 * into the Authorization header.
 */
import type { AnswerLimits } from '../../client/answer-budget.js';
import type { CallCounter } from '../crm/crm-counters.js';
import { type CrmHttp, createCrmHttp } from '../crm/crm-http.js';
import { DEFAULT_CRM_RETRY_POLICY } from '../crm/crm-retry.js';
import type { Pace } from '../shared-pace.js';
import { classifyTrouble, dailyRemaining } from './hubspot-answer.js';

/** HubSpot's API address; configurable, as the versioned paths move to dated ones. */
export const DEFAULT_HUBSPOT_BASE_URL = 'https://api.hubapi.com';
/** Search calls per second: under HubSpot's 5, as its own SDK's search limiter does. */
export const SEARCH_RATE = { requests: 4, perMs: 1_000 } as const;
/** Inputs per batch call: HubSpot's limit for every object batch endpoint. */
export const HUBSPOT_BATCH_LIMIT = 100;

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
  readonly counter: CallCounter;
  /** Methods sent once, never retried within a call (a task's create: no idempotency key). */
  readonly sendOnce?: readonly string[] | undefined;
  /** serve's answer budget and the plan's cap on one answer, when given. */
  readonly answers?: AnswerLimits | undefined;
}

/** A paced, counted, retried HubSpot client. */
export type HubSpotClient = CrmHttp;

/** Creates the client. */
export function createHubSpotClient(config: HubSpotClientConfig): HubSpotClient {
  return createCrmHttp({
    crm: 'HubSpot',
    baseUrl: config.baseUrl,
    headers: { authorization: `Bearer ${config.token}` },
    fetch: config.fetch,
    now: config.now,
    paceFor: (path) => (path.endsWith('/search') ? config.searchPace : config.pace),
    counter: config.counter,
    retry:
      config.sendOnce === undefined
        ? DEFAULT_CRM_RETRY_POLICY
        : { ...DEFAULT_CRM_RETRY_POLICY, sendOnce: config.sendOnce },
    classify: (answer) =>
      classifyTrouble({
        status: answer.status,
        text: answer.text,
        retryAfterMs: answer.retryAfterMs,
        tokenEnv: config.tokenEnv,
      }),
    answers: config.answers,
    onHeaders(headers) {
      const left = dailyRemaining(headers);
      if (left !== undefined) config.counter.dailyRemaining(left);
    },
  });
}
