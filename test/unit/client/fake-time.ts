/**
 * A fake clock for client tests: `sleep` records the wait asked for and moves the clock by it at once,
 * so retry and pacing waits cost no real time and can be asserted exactly.
 */
export interface FakeTime {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Every wait asked for, in ms, in order. */
  readonly requested: number[];
}

/** A clock starting at `startMs` whose sleep returns at once. */
export function fakeTime(startMs = 1_700_000_000_000): FakeTime {
  let t = startMs;
  const requested: number[] = [];
  return {
    now: () => t,
    requested,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      requested.push(ms);
      t += ms;
    },
  };
}
