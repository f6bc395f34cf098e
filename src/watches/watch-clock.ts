/** The time watches run on: the real clock, or a test's (fake the clock, not the code). */

/** Time for the cycles: the real one, or a test's. `sleep` resolves false when `signal` aborts it. */
export interface WatchClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
}

/** The real clock. */
export const SYSTEM_CLOCK: WatchClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(false);
      const timer = setTimeout(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        },
        Math.max(0, ms),
      );
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};
