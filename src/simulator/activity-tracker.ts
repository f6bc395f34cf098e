/**
 * Work in progress in the simulator (async jobs still running, webhook deliveries not finished), and
 * waiting for a condition on it: what `waitForDeliveries()` is built on.
 */

interface Waiter {
  readonly check: () => boolean;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly timer: NodeJS.Timeout;
}

/** Counts tasks in flight and wakes waiters whenever something changes. */
export class ActivityTracker {
  #active = 0;
  readonly #waiters = new Set<Waiter>();

  /** Tasks begun and not yet ended. */
  get active(): number {
    return this.#active;
  }

  /** Starts a task; call the returned function (once; later calls do nothing) when it ends. */
  begin(): () => void {
    this.#active += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#active -= 1;
      this.notify();
    };
  }

  /** Re-checks every waiter (call after any change a condition may read). */
  notify(): void {
    for (const waiter of this.#waiters) {
      if (waiter.check()) {
        this.#waiters.delete(waiter);
        clearTimeout(waiter.timer);
        waiter.resolve();
      }
    }
  }

  /** Resolves once `condition()` holds; rejects after `timeoutMs` with an Error naming `what`. */
  waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        check: condition,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /** Rejects every waiter with `reason` (the simulator is closing). */
  close(reason: Error): void {
    for (const waiter of this.#waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(reason);
    }
    this.#waiters.clear();
  }
}
