import { describe, expect, it } from 'vitest';
import { ActivityTracker } from '../../../src/simulator/activity-tracker.js';

describe('ActivityTracker', () => {
  it('resolves a wait once the condition holds, and ends a task only once', async () => {
    const tracker = new ActivityTracker();
    const end = tracker.begin();
    const other = tracker.begin();
    let idle = false;
    const waiting = tracker
      .waitFor(() => tracker.active === 0, 1000, 'idle')
      .then(() => {
        idle = true;
      });
    end();
    end();
    await Promise.resolve();
    expect(tracker.active).toBe(1);
    expect(idle).toBe(false);
    other();
    await waiting;
    expect(idle).toBe(true);
  });

  it('times out with a message, and rejects waiters on close', async () => {
    const tracker = new ActivityTracker();
    tracker.begin();
    await expect(tracker.waitFor(() => false, 10, 'never')).rejects.toThrow('waiting for never');
    const pending = tracker.waitFor(() => false, 1000, 'x');
    tracker.close(new Error('closed'));
    await expect(pending).rejects.toThrow('closed');
  });
});
