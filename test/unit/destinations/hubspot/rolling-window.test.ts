/** The pace of HubSpot calls: never more than N in any window, on a fake clock. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RollingWindow } from '../../../../src/destinations/hubspot/rolling-window.js';

describe('RollingWindow', () => {
  it('lets N calls through, then says when the oldest leaves the window', () => {
    let now = 1_000;
    const window = new RollingWindow({ requests: 3, perMs: 10_000 }, () => now);
    expect([window.take(), window.take()]).toEqual([true, true]);
    now += 4_000;
    expect(window.take()).toBe(true);
    expect(window.take()).toBe(false);
    expect(window.waitMs()).toBe(6_000);
    now += 6_000;
    expect(window.take()).toBe(true);
    expect(window.take()).toBe(true);
    expect(window.take()).toBe(false);
    expect(window.waitMs()).toBe(4_000);
  });

  it('never lets more than N through in any window of perMs, whatever the timing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 300 }),
        (requests, gaps) => {
          let now = 0;
          const window = new RollingWindow({ requests, perMs: 10_000 }, () => now);
          const sent: number[] = [];
          for (const gap of gaps) {
            now += gap;
            if (window.take()) sent.push(now);
            else expect(window.waitMs()).toBeGreaterThan(0);
          }
          for (const [index, at] of sent.entries()) {
            expect(sent.slice(index).filter((t) => t < at + 10_000).length).toBeLessThanOrEqual(requests);
          }
        },
      ),
    );
  });
});
