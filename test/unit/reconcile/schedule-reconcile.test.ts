import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import type { ReconcileReport } from '../../../src/reconcile/reconcile-report.js';
import { scheduleReconcile } from '../../../src/reconcile/schedule-reconcile.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('scheduleReconcile', () => {
  it('refuses an invalid expression with a ConfigError naming it', () => {
    expect(() =>
      scheduleReconcile({ cron: 'every night', run: async () => ({}) as ReconcileReport }),
    ).toThrow(ConfigError);
    expect(() => scheduleReconcile({ cron: '61 * * * *', run: async () => ({}) as ReconcileReport })).toThrow(
      '"61 * * * *" is not a valid cron expression',
    );
  });

  it('tells when the next run is', () => {
    const schedule = scheduleReconcile({ cron: '0 3 * * *', run: async () => ({}) as ReconcileReport });
    try {
      const next = schedule.nextRunAt();
      expect(next?.getHours()).toBe(3);
      expect(next?.getMinutes()).toBe(0);
      expect(next!.getTime()).toBeGreaterThan(Date.now());
    } finally {
      schedule.stop();
    }
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('never overlaps runs: a tick during a run is skipped; stop ends the schedule', async () => {
    // On a fake clock (croner's timers and Date, and the runs' own 1.3 s): the same seconds, none waited.
    vi.useFakeTimers({
      now: new Date('2026-01-01T00:00:00.500Z'),
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
    });
    let active = 0;
    let maxActive = 0;
    let started = 0;
    const schedule = scheduleReconcile({
      cron: '* * * * * *',
      run: async () => {
        started += 1;
        active += 1;
        maxActive = Math.max(maxActive, active);
        await sleep(1300);
        active -= 1;
        return { status: 'completed', recovered: 0 } as ReconcileReport;
      },
    });
    await vi.advanceTimersByTimeAsync(2300);
    expect(schedule.isRunning() || started >= 1).toBe(true);
    schedule.stop();
    const startedAtStop = started;
    await vi.advanceTimersByTimeAsync(1100);
    // Ticks every second for ~2.3 s, but each run lasts 1.3 s: at most two runs, never two at once.
    expect(startedAtStop).toBeGreaterThanOrEqual(1);
    expect(startedAtStop).toBeLessThanOrEqual(2);
    expect(maxActive).toBe(1);
    expect(started).toBe(startedAtStop);
  });
});
