/**
 * HubSpot's burst limit is a rolling window (TEN_SECONDLY_ROLLING: at most N calls in any 10 s). A token
 * bucket of N refilled over 10 s lets up to 2N through in some 10 s (a full bucket, then its refill), so the
 * destination paces with the window itself: a call may go when fewer than N were sent in the last `perMs`.
 * Memory is the N send times.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pace } from '../shared-pace.js';

/** The pace of one process's HubSpot search calls (setup's adoption). */
export class RollingWindow implements Pace {
  readonly #requests: number;
  readonly #perMs: number;
  readonly #now: () => number;
  /** Send times of the last `requests` calls, oldest first. */
  readonly #sent: number[] = [];

  constructor(rate: { readonly requests: number; readonly perMs: number }, now: () => number) {
    this.#requests = rate.requests;
    this.#perMs = rate.perMs;
    this.#now = now;
  }

  /** Records a call now when the window has room; false when it has none. */
  take(): boolean {
    const now = this.#now();
    while (this.#sent.length > 0 && this.#sent[0]! <= now - this.#perMs) this.#sent.shift();
    if (this.#sent.length >= this.#requests) return false;
    this.#sent.push(now);
    return true;
  }

  /** Ms until the window has room (0 when it has). */
  waitMs(): number {
    if (this.#sent.length < this.#requests) return 0;
    return Math.max(0, this.#sent[this.#sent.length - this.#requests]! + this.#perMs - this.#now());
  }

  /** Waits until the window has room, and takes it. */
  async wait(signal: AbortSignal): Promise<void> {
    while (!this.take()) await sleep(Math.max(1, this.waitMs()), undefined, { signal });
  }
}
