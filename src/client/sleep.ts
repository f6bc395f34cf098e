/**
 * Waiting on a global timer (faked by tests with vitest): `sleep(ms, signal)` resolves after `ms` milliseconds, or rejects
 * with the signal's reason as soon as the signal aborts.
 */

/** An injectable wait; tests pass one that advances a fake clock and records what was asked. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The real wait: a timer that an AbortSignal can cut short. */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
