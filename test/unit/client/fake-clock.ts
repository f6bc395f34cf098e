/**
 * vitest's fake timers for client tests: the client waits (retries through p-retry, pacing) on global
 * timers and reads Date.now, so faking setTimeout and Date makes every wait instant and exact, while the
 * sockets, and AbortSignal.timeout (the per-attempt timeout), stay real.
 */

import { Writable } from 'node:stream';
import { setImmediate as realImmediate } from 'node:timers';
import { type Logger, pino } from 'pino';
import { vi } from 'vitest';

/** The fake clock's start. */
export const FAKE_START_MS = 1_700_000_000_000;

/** Fakes setTimeout, clearTimeout and Date from `startMs`; undo with `vi.useRealTimers()`. */
export function useFakeClock(startMs = FAKE_START_MS): void {
  vi.useFakeTimers({ now: startMs, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
}

/**
 * A logger that records every wait the client announces, in ms, in order: its retry waits ('retrying
 * service call') and its pacing waits ('waiting for a pacing token').
 */
export function retryWatch(): { logger: Logger; delays: number[]; lines: Record<string, unknown>[] } {
  const delays: number[] = [];
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk)) as Record<string, unknown>;
      lines.push(line);
      if (line.msg === 'retrying service call') delays.push(Number(line.delayMs));
      if (line.msg === 'waiting for a pacing token') delays.push(Number(line.waitMs));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), delays, lines };
}

/**
 * Settles `promise` while playing its waits on the fake clock: each wait in `delays` is advanced once it
 * is announced (just before its timer is set, so the advance finds it); between, real I/O runs.
 * `onWait(index)` instead of advancing, when given and it returns true, leaves the wait to the caller.
 */
export async function drive<T>(
  promise: Promise<T>,
  delays: readonly number[],
  onWait?: (index: number) => boolean,
): Promise<T> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  let played = 0;
  while (!done) {
    if (delays.length > played) {
      const index = played;
      played += 1;
      if (onWait?.(index) !== true) await vi.advanceTimersByTimeAsync(delays[index] ?? 0);
      continue;
    }
    await new Promise((resolve) => realImmediate(resolve));
  }
  return promise;
}
