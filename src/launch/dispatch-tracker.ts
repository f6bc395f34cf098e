/**
 * Knows, for each row being launched, whether its request has left for the service: the client's fetch is
 * wrapped, and the row's scope travels with its call (AsyncLocalStorage). A run that must stop aborts only
 * the rows still waiting (for a pacing token, for a retry) whose request was never sent, so that nothing
 * already paid for is abandoned half-way. It also turns a 429 on an unpaced call into a pause all rows obey.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { parseRetryAfterSeconds } from '../client/retry-after.js';

/** One row's call: whether a request of it went out, and the status of its latest answer. */
export interface DispatchScope {
  dispatched: boolean;
  lastStatus: number | undefined;
}

/** Used when a 429 names no wait. */
const DEFAULT_PAUSE_MS = 1000;

/** Tracks dispatches through the fetch it hands to the client. */
export class DispatchTracker {
  readonly #storage = new AsyncLocalStorage<DispatchScope>();
  readonly #inner: typeof fetch;
  readonly #now: () => number;
  #pausedUntilMs = 0;
  #rateLimited = 0;

  constructor(inner: typeof fetch = globalThis.fetch, now: () => number = Date.now) {
    this.#inner = inner;
    this.#now = now;
  }

  /** The fetch to give the client. */
  readonly fetch: typeof fetch = async (input, init) => {
    const scope = this.#storage.getStore();
    if (scope !== undefined) scope.dispatched = true;
    const response = await this.#inner(input, init);
    if (scope !== undefined) scope.lastStatus = response.status;
    if (response.status === 429) {
      this.#rateLimited += 1;
      const seconds = parseRetryAfterSeconds(response.headers.get('retry-after'), undefined, this.#now());
      const until = this.#now() + (seconds === undefined ? DEFAULT_PAUSE_MS : seconds * 1000);
      if (until > this.#pausedUntilMs) this.#pausedUntilMs = until;
    }
    return response;
  };

  /** Runs `work` with `scope` as the current row's. */
  run<T>(scope: DispatchScope, work: () => Promise<T>): Promise<T> {
    return this.#storage.run(scope, work);
  }

  /** No new row should start before this time (ms): the service answered 429. */
  get pausedUntilMs(): number {
    return this.#pausedUntilMs;
  }

  /** 429 answers seen. */
  get rateLimited(): number {
    return this.#rateLimited;
  }
}
