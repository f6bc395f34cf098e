import { describe, expect, it } from 'vitest';
import type { ClaimedEvent } from '../../../src/destinations/outbox.js';
import {
  type EventJob,
  NOT_NORMALIZED_WAIT_MS,
  planDelivery,
  planOutcome,
  planRelease,
} from '../../../src/destinations/plan-outcome.js';
import { MAX_RETRY_AFTER_MS } from '../../../src/destinations/plan-retry.js';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const event: ClaimedEvent = { id: '7', jobId: 'j-1', revision: 2, attempts: 0 };
const job: EventJob = {
  job_id: 'j-1',
  kind: 'company_reveal',
  source: 'webhook',
  status: 'SUCCEEDED',
  revision: 2,
  envelope: '{"job_id":"j-1"}',
};
const policy = { destination: 'crm', scheduleMs: [5_000, 30_000], nowMs: NOW, random: () => 0.5 };

describe('planDelivery', () => {
  it('hands a stored, current, normalized job on as a delivery with a stable event id', () => {
    expect(planDelivery(event, job, false, policy)).toEqual({
      delivery: {
        eventId: 'job_j-1_r2',
        jobId: 'j-1',
        revision: 2,
        kind: 'company_reveal',
        source: 'webhook',
        status: 'SUCCEEDED',
        envelopeText: '{"job_id":"j-1"}',
      },
    });
  });

  it('fails the event of a purged job, with a warning', () => {
    const planned = planDelivery(event, undefined, false, policy);
    expect(planned).toMatchObject({
      plan: {
        completion: {
          id: '7',
          result: 'failed',
          status: null,
          error: 'the job is no longer stored (purged)',
        },
        outcome: 'failed',
        warn: { fields: { destination: 'crm', job_id: 'j-1', revision: 2 } },
      },
    });
  });

  it('supersedes an event whose job has a newer revision (stored as a bigint string too)', () => {
    expect(planDelivery(event, { ...job, revision: '3' }, false, policy)).toEqual({
      plan: { completion: { id: '7', result: 'superseded' }, outcome: 'superseded' },
    });
  });

  it('puts an event back, uncounted, while its job rows are queued', () => {
    expect(planDelivery(event, job, true, policy)).toEqual({
      plan: { completion: { id: '7', result: 'release', nextAttemptAt: iso(NOW + NOT_NORMALIZED_WAIT_MS) } },
    });
  });

  it('hands a watch change on, or puts it back while the rows of the job that found it are queued', () => {
    const changeEvent: ClaimedEvent = { id: '8', jobId: 'j-1', revision: 0, attempts: 0, changeId: '5' };
    const change = {
      id: '5',
      watch: 'champions',
      change: 'moved',
      key: 'k',
      custom_fields: { hs_object_id: '101' },
      before: null,
      after: { status: 'moved' },
      detected_at: iso(NOW),
      job_id: 'j-1',
    };
    expect(planDelivery(changeEvent, undefined, false, policy, change)).toEqual({
      delivery: {
        eventId: 'watch_change_5',
        jobId: 'j-1',
        revision: 0,
        kind: 'watch_change',
        source: 'watch',
        status: 'moved',
        envelopeText: '',
        change,
      },
    });
    expect(planDelivery(changeEvent, undefined, true, policy, change)).toEqual({
      plan: { completion: { id: '8', result: 'release', nextAttemptAt: iso(NOW + NOT_NORMALIZED_WAIT_MS) } },
    });
  });
});

describe('planOutcome', () => {
  it('records a delivery', () => {
    expect(planOutcome(event, { outcome: 'delivered', status: 204 }, policy)).toEqual({
      completion: { id: '7', result: 'delivered', status: 204 },
      outcome: 'delivered',
    });
  });

  it('retries on the schedule with jitter, never sooner than Retry-After (capped)', () => {
    const retry = { outcome: 'retry', status: 503, error: 'busy' } as const;
    expect(planOutcome(event, retry, policy).completion).toEqual({
      id: '7',
      result: 'retry',
      status: 503,
      error: 'busy',
      nextAttemptAt: iso(NOW + 5_000),
    });
    const asked = planOutcome(event, { ...retry, retryAfterMs: 60_000 }, policy);
    expect(asked.completion).toMatchObject({ nextAttemptAt: iso(NOW + 60_000) });
    const huge = planOutcome(event, { ...retry, retryAfterMs: 10 * MAX_RETRY_AFTER_MS }, policy);
    expect(huge.completion).toMatchObject({ nextAttemptAt: iso(NOW + MAX_RETRY_AFTER_MS) });
    expect(asked.outcome).toBe('retried');
    expect(asked.warn).toBeUndefined();
  });

  it('fails an event once its schedule is spent, and says so', () => {
    const spent = { ...event, attempts: 2 };
    const plan = planOutcome(spent, { outcome: 'retry', status: 500, error: 'boom' }, policy);
    expect(plan.completion).toEqual({ id: '7', result: 'failed', status: 500, error: 'boom' });
    expect(plan.outcome).toBe('failed');
    expect(plan.warn?.fields).toMatchObject({ attempts: 3, status: 500 });
  });

  it('fails a refused event at once', () => {
    const plan = planOutcome(event, { outcome: 'fail', status: 400, error: 'bad' }, policy);
    expect(plan.completion).toEqual({ id: '7', result: 'failed', status: 400, error: 'bad' });
    expect(plan.warn?.message).toMatch(/failed until replayed/);
  });

  it('pauses on a 410: the event goes back due now, and the warning names the resume command', () => {
    const plan = planOutcome(event, { outcome: 'pause', status: 410, error: 'gone' }, policy);
    expect(plan.completion).toEqual({
      id: '7',
      result: 'release',
      nextAttemptAt: iso(NOW),
      status: 410,
      error: 'gone',
    });
    expect(plan.pause).toEqual({ status: 410, error: 'gone' });
    expect(plan.outcome).toBe('paused');
    expect(plan.warn?.message).toContain('hooksync destinations resume crm');
  });

  it('puts a rate-limited event back after the wait, not as an attempt', () => {
    const plan = planOutcome(event, { outcome: 'wait', status: 429, error: 'slow', waitMs: 9_000 }, policy);
    expect(plan.completion).toEqual({
      id: '7',
      result: 'release',
      nextAttemptAt: iso(NOW + 9_000),
      status: 429,
      error: 'slow',
    });
    expect(plan.outcome).toBe('rate_limited');
  });

  it('releases an event untouched', () => {
    expect(planRelease(event, NOW, 250)).toEqual({
      completion: { id: '7', result: 'release', nextAttemptAt: iso(NOW + 250) },
    });
  });
});
