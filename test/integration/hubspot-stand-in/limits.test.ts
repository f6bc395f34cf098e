/**
 * The stand-in's limits over real HTTP with a fake clock: the rolling 10-second window and the daily window of
 * non-search calls with their headers and 429 bodies, search's own per-second window without headers, and the
 * optional Retry-After (shared/docs/hubspot-api.md §2, §5).
 */
import { describe, expect, it } from 'vitest';
import type { HubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { call, fakeClock, standInsClosedAfterEach } from './http.js';

const start = standInsClosedAfterEach();

const read = (standIn: HubSpotStandIn) =>
  call(standIn, 'POST', '/crm/v3/objects/contacts/batch/read', { properties: [], inputs: [] });
const search = (standIn: HubSpotStandIn) =>
  call(standIn, 'POST', '/crm/v3/objects/contacts/search', { filterGroups: [], limit: 1 });

describe('ten-secondly window', () => {
  it('counts every call, errors included, announces it in the headers, and rolls', async () => {
    const clock = fakeClock();
    const standIn = await start({ tenSecondly: 4, now: clock.now });
    const first = await read(standIn);
    expect(first.status).toBe(200);
    expect(Object.fromEntries([...first.headers].filter(([name]) => name.startsWith('x-hubspot')))).toEqual({
      'x-hubspot-ratelimit-max': '4',
      'x-hubspot-ratelimit-remaining': '3',
      'x-hubspot-ratelimit-interval-milliseconds': '10000',
      'x-hubspot-ratelimit-daily': '250000',
      'x-hubspot-ratelimit-daily-remaining': '249999',
    });
    clock.advance(3_000);
    // A 400 and a 404 count like any call.
    expect(
      (await call(standIn, 'POST', '/crm/v3/objects/contacts/batch/upsert', { inputs: 'x' })).status,
    ).toBe(400);
    expect((await call(standIn, 'GET', '/crm/v3/objects/contacts/1')).status).toBe(404);
    const last = await read(standIn);
    expect(last.headers.get('x-hubspot-ratelimit-remaining')).toBe('0');

    const refused = await read(standIn);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      status: 'error',
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      policyName: 'TEN_SECONDLY_ROLLING',
    });
    expect(refused.body.correlationId).toEqual(expect.any(String));
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.headers.get('x-hubspot-ratelimit-remaining')).toBe('0');
    // The refused call is a request of the day too.
    expect(refused.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('249995');

    // The first call leaves the window 10 s after it was made: one slot frees, not four.
    clock.advance(7_000);
    expect((await read(standIn)).status).toBe(200);
    expect((await read(standIn)).status).toBe(429);
    // At 13 s the three calls made at 3 s have left too.
    clock.advance(3_000);
    expect((await read(standIn)).headers.get('x-hubspot-ratelimit-remaining')).toBe('2');
  });

  it('sends Retry-After when asked to', async () => {
    const clock = fakeClock();
    const standIn = await start({ tenSecondly: 1, now: clock.now, retryAfter: true });
    await read(standIn);
    clock.advance(2_500);
    const refused = await read(standIn);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('8');
  });
});

describe('daily window', () => {
  it('refuses with DAILY until midnight UTC of the clock, then resets', async () => {
    const clock = fakeClock(Date.UTC(2026, 10, 25, 23, 59, 0));
    const standIn = await start({ daily: 3, now: clock.now, retryAfter: true });
    for (let i = 0; i < 3; i += 1) {
      clock.advance(10_000);
      expect((await read(standIn)).status).toBe(200);
    }
    const refused = await read(standIn);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      policyName: 'DAILY',
      message: 'You have reached your daily limit.',
    });
    expect(refused.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('0');
    expect(refused.headers.get('retry-after')).toBe('30');
    clock.advance(30_000);
    const next = await read(standIn);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('2');
  });
});

describe('search', () => {
  it('has its own per-second window, a SECONDLY 429 and no limit headers', async () => {
    const clock = fakeClock();
    const standIn = await start({ tenSecondly: 2, searchPerSecond: 2, now: clock.now });
    const first = await search(standIn);
    expect(first.status).toBe(200);
    expect([...first.headers.keys()].filter((name) => name.startsWith('x-hubspot'))).toEqual([]);
    expect((await search(standIn)).status).toBe(200);
    const refused = await search(standIn);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      policyName: 'SECONDLY',
      message: 'You have reached your secondly limit.',
    });
    // Search did not spend the ten-secondly budget.
    expect((await read(standIn)).headers.get('x-hubspot-ratelimit-remaining')).toBe('1');
    clock.advance(1_000);
    expect((await search(standIn)).status).toBe(200);
  });
});
