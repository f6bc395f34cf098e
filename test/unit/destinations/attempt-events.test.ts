import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AttemptContext,
  attemptEvents,
  attemptSignal,
} from '../../../src/destinations/attempt-events.js';
import type { HeldEvent } from '../../../src/destinations/claim-window.js';
import type { AttemptResult, OutboxDestination } from '../../../src/destinations/destination-type.js';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const TIMEOUT_MS = 12_000;

/** A destination whose calls hang until their signal aborts, and then say why. */
function hungDestination(seen: AbortSignal[]): OutboxDestination {
  const hang = (signal: AbortSignal) =>
    new Promise<AttemptResult>((resolve) => {
      seen.push(signal);
      signal.addEventListener('abort', () =>
        resolve({ outcome: 'retry', status: null, error: (signal.reason as Error).name }),
      );
    });
  return {
    kind: 'outbox',
    template: undefined,
    deliver: (_delivery, signal) => hang(signal),
    ping: (signal) => hang(signal),
  };
}

const held: HeldEvent = {
  event: { id: '7', jobId: 'j-1', revision: 1, attempts: 0 },
  job: {
    job_id: 'j-1',
    kind: 'company_reveal',
    source: 'webhook',
    status: 'SUCCEEDED',
    revision: 1,
    envelope: '{"job_id":"j-1"}',
  },
  queued: false,
};

function contextOf(destination: OutboxDestination, stop: AbortSignal): AttemptContext {
  return {
    name: 'crm',
    destination,
    timeoutMs: TIMEOUT_MS,
    scheduleMs: [5_000],
    stop,
    rows: undefined,
    metrics: undefined,
    now: () => NOW,
    random: () => 0.5,
  };
}

describe('attemptEvents against a hung destination', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: NOW });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends the attempt at its timeout, with a retry, and leaves no timer behind', async () => {
    const seen: AbortSignal[] = [];
    const planned = attemptEvents([held], contextOf(hungDestination(seen), new AbortController().signal));
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS - 1);
    expect(seen[0]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const plans = await planned;
    expect(plans).toMatchObject([
      { outcome: 'retried', completion: { id: '7', result: 'retry', error: 'TimeoutError' } },
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('hands the events back as they were when the lane stops mid-attempt', async () => {
    const seen: AbortSignal[] = [];
    const stop = new AbortController();
    const planned = attemptEvents([held], contextOf(hungDestination(seen), stop.signal));
    await vi.advanceTimersByTimeAsync(10);
    stop.abort(new Error('shutdown'));
    const plans = await planned;
    expect(plans).toMatchObject([{ completion: { id: '7', result: 'release' } }]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('attemptSignal', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: NOW });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts with a TimeoutError after the timeout, unless cleared first', () => {
    const stop = new AbortController();
    const fired = attemptSignal(1_000, stop.signal);
    const cleared = attemptSignal(1_000, stop.signal);
    cleared.clear();
    vi.advanceTimersByTime(1_000);
    expect((fired.signal.reason as Error).name).toBe('TimeoutError');
    expect(cleared.signal.aborted).toBe(false);
    fired.clear();
  });

  it('aborts with the stop signal, at once when it has already stopped', () => {
    const stopped = AbortSignal.abort(new Error('gone'));
    expect(attemptSignal(1_000, stopped).signal.reason).toBe(stopped.reason);
    const stop = new AbortController();
    const live = attemptSignal(1_000, stop.signal);
    stop.abort(new Error('shutdown'));
    expect((live.signal.reason as Error).message).toBe('shutdown');
    live.clear();
  });
});
