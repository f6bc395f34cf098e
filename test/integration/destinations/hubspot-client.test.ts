/**
 * The HubSpot client over the CRM core's HTTP client, against the stand-in on port 0: what is retried within
 * a call (p-retry, HubSpot's policy) and what is not, an abort that stops at once, and answers that are
 * malformed or too large failing the call (retryable on the lane's schedule) instead of crashing or looping.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallCounter } from '../../../src/destinations/crm/crm-counters.js';
import { createHubSpotAdapter } from '../../../src/destinations/hubspot/hubspot-adapter.js';
import { createHubSpotClient, type HubSpotClient } from '../../../src/destinations/hubspot/hubspot-client.js';
import type { Pace } from '../../../src/destinations/shared-pace.js';
import { CrmError } from '../../../src/errors.js';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';
import { until } from '../../helpers/until.js';

const open: Pace = { wait: async (signal) => signal.throwIfAborted() };

let hs: HubSpotStandIn;
let client: HubSpotClient;
let counted: { calls: number; rateLimited: string[] };

beforeEach(async () => {
  hs = await startHubSpotStandIn();
  defineSetUpProperties(hs);
  counted = { calls: 0, rateLimited: [] };
  const counter: CallCounter = {
    call: () => {
      counted.calls += 1;
    },
    rateLimited: (policy) => {
      counted.rateLimited.push(policy);
    },
    dailyRemaining: () => undefined,
  };
  client = createHubSpotClient({
    baseUrl: hs.url,
    token: hs.token,
    tokenEnv: 'HUBSPOT_TOKEN',
    fetch: globalThis.fetch,
    pace: open,
    searchPace: open,
    now: Date.now,
    counter,
  });
});
afterEach(async () => {
  await hs.close();
});

const upsertOne = () =>
  createHubSpotAdapter(client).write(
    'companies',
    [
      {
        idProperty: 'hooksync_domain',
        key: 'acme.com',
        id: undefined,
        properties: { name: 'Acme', hooksync_domain: 'acme.com' },
      },
    ],
    AbortSignal.timeout(30_000),
  );
const rejection = async (promise: Promise<unknown>): Promise<CrmError> => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CrmError);
  return error as CrmError;
};

describe('the HubSpot client', () => {
  it('attempts a non-retryable answer (400) once and hands it back as a refusal', async () => {
    hs.failNext({
      status: 400,
      body: { status: 'error', message: 'bad input', category: 'VALIDATION_ERROR' },
    });
    const error = await rejection(upsertOne());
    expect(error.trouble.kind).toBe('fail');
    expect(error.code).toBe('CRM_REFUSED');
    expect(hs.calls()).toHaveLength(1);
    expect(counted.calls).toBe(1);
  });

  it('sends a call refused with 401 once: a fixed token has no session to renew, so the call is not replayed', async () => {
    hs.failNext({
      status: 401,
      body: { status: 'error', message: 'expired', category: 'INVALID_AUTHENTICATION' },
    });
    const error = await rejection(upsertOne());
    expect(error.trouble.kind).toBe('pause');
    expect(error.message).toContain('HUBSPOT_TOKEN');
    expect(hs.calls().map((call) => call.status)).toEqual([401]);
    expect(counted.calls).toBe(1);
  });

  it('retries a 5xx within the call (two more tries) and then hands it to the lane as retryable', async () => {
    hs.failNext({ status: 503, times: 1 });
    expect(await upsertOne()).toMatchObject([{ ok: true, created: true }]);
    expect(hs.calls().map((call) => call.status)).toEqual([503, 200]);

    hs.failNext({ status: 502, times: 5 });
    const error = await rejection(upsertOne());
    expect(error.trouble.kind).toBe('retry');
    expect(
      hs
        .calls()
        .slice(2)
        .map((call) => call.status),
    ).toEqual([502, 502, 502]);
  });

  it('does not wait out a TEN_SECONDLY_ROLLING 429 inside the call: the lane defers every event for it', async () => {
    hs.failNext({ status: 429 });
    const error = await rejection(upsertOne());
    expect(error.trouble).toMatchObject({ kind: 'wait', policy: 'TEN_SECONDLY_ROLLING' });
    expect(hs.calls()).toHaveLength(1);
    expect(counted.rateLimited).toEqual(['TEN_SECONDLY_ROLLING']);
  });

  it('stops at once when the call is aborted, also while it waits for the server-set delay', async () => {
    const aborted = AbortSignal.abort();
    const before = await rejection(client.request('GET', '/crm/v3/properties/companies', undefined, aborted));
    expect(before.message).toBe('timed out');
    expect(hs.calls()).toHaveLength(0);

    // A lock the server asks to wait a minute for: the abort ends the wait, no second try is sent.
    hs.failNext({ status: 423, headers: { 'retry-after': '60' } });
    const controller = new AbortController();
    const call = client.request('GET', '/crm/v3/properties/companies', undefined, controller.signal);
    await until(() => hs.calls().length > 0, { message: 'the stand-in has the call', interval: 5 });
    controller.abort();
    const error = await rejection(call);
    expect(error.message).toBe('timed out');
    expect(hs.calls()).toHaveLength(1);
  });

  it('fails a malformed 200 as a retryable attempt, once, naming what is wrong', async () => {
    hs.failNext({ status: 200, body: { results: 5 }, match: { pathIncludes: '/batch/upsert' } });
    const error = await rejection(upsertOne());
    expect(error.trouble.kind).toBe('retry');
    expect(error.status).toBe(200);
    expect(error.message).toContain('results');
    expect(hs.calls()).toHaveLength(1);
  });

  it('refuses an answer over the size cap without holding it, once', async () => {
    hs.failNext({ status: 200, body: { results: [], padding: 'x'.repeat(9 * 1024 * 1024) } });
    const error = await rejection(
      client.request('GET', '/crm/v3/properties/companies', undefined, AbortSignal.timeout(30_000)),
    );
    expect(error.trouble.kind).toBe('retry');
    expect(error.message).toContain('larger than');
    expect(hs.calls()).toHaveLength(1);
  });
});
