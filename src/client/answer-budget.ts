/**
 * The memory budget for service answers in flight (issue 28 part 3): an answer's bytes are reserved before
 * its body is read and given back once it has been parsed, so that however many calls run at once, the
 * answers held in memory never add up to more than the budget. JSON grows about 22 times in the heap once
 * parsed, so the budget, not the per-answer cap alone, is what bounds memory. Waiters are served in order.
 */

// This module imports nothing: the executable's main thread loads it (through server/memory-budgets.ts) to
// size the CLI's thread.

/** How many times its size an answer takes in the heap once parsed (JSON, measured). */
export const PARSED_ANSWER_GROWTH = 22;
/** 16 MiB of answers at once: about 350 MiB of heap once parsed; sixteen 250-person pages (about 1 MiB each). */
export const DEFAULT_ANSWER_BUDGET_BYTES = 16 * 1024 * 1024;

interface Waiter {
  readonly bytes: number;
  readonly resolve: (release: () => void) => void;
}

/** Bytes of answers in flight, shared by every call of a client (or of several, when passed to each). */
export class AnswerBudget {
  readonly limitBytes: number;
  #used = 0;
  #peak = 0;
  readonly #queue: Waiter[] = [];

  constructor(limitBytes = DEFAULT_ANSWER_BUDGET_BYTES) {
    if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0) {
      throw new TypeError('AnswerBudget: limitBytes must be a positive integer');
    }
    this.limitBytes = limitBytes;
  }

  /** Bytes reserved right now. */
  get inUse(): number {
    return this.#used;
  }

  /** The most bytes reserved at once so far. */
  get peak(): number {
    return this.#peak;
  }

  /**
   * Resolves with `release` (call it once) when `bytes` fit beside what is reserved, in arrival order; a
   * request larger than the whole budget waits until nothing else is reserved. Rejects with the signal's
   * reason if it aborts first.
   */
  acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    if (!Number.isSafeInteger(bytes) || bytes < 0)
      throw new TypeError('bytes must be a non-negative integer');
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#queue.length === 0 && this.#fits(bytes)) return Promise.resolve(this.#take(bytes));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
        reject(signal?.reason);
        this.#serve();
      };
      const waiter: Waiter = {
        bytes,
        resolve: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #fits(bytes: number): boolean {
    return this.#used + bytes <= this.limitBytes || this.#used === 0;
  }

  #take(bytes: number): () => void {
    this.#used += bytes;
    this.#peak = Math.max(this.#peak, this.#used);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#used -= bytes;
      this.#serve();
    };
  }

  #serve(): void {
    while (this.#queue.length > 0 && this.#fits((this.#queue[0] as Waiter).bytes)) {
      const waiter = this.#queue.shift() as Waiter;
      waiter.resolve(this.#take(waiter.bytes));
    }
  }
}

/**
 * How a client other than the service's reads its answers under serve's memory plan (a CRM's, a watch
 * source's): the one answer budget, shared with the service's client, and the cap on one answer the plan
 * derives from the memory ceiling (undefined without a ceiling: each client's own cap holds).
 */
export interface AnswerLimits {
  readonly budget: AnswerBudget;
  /** Largest answer read, bytes; undefined: the client's own constant. */
  readonly maxBytes: number | undefined;
}

/** The cap on one answer: the client's own, lowered to the plan's when there is one. */
export function answerCap(own: number, limits: AnswerLimits | undefined): number {
  return limits?.maxBytes === undefined ? own : Math.min(own, limits.maxBytes);
}

/**
 * Reserves an answer's bytes in `limits`' budget before its body is read: its declared length (a
 * Content-Length header's value), else the cap; nothing for one over the cap, which the capped reader
 * refuses unread. Resolves with the release (a no-op without limits).
 */
export async function reserveAnswer(
  limits: AnswerLimits | undefined,
  contentLength: string | null,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<() => void> {
  if (limits === undefined) return () => undefined;
  const declared = Number(contentLength ?? Number.NaN);
  const expected = Number.isSafeInteger(declared) && declared >= 0 ? declared : maxBytes;
  return limits.budget.acquire(expected > maxBytes ? 0 : expected, signal);
}
