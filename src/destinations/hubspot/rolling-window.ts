/**
 * HubSpot's burst limit is a rolling window (TEN_SECONDLY_ROLLING: at most N calls in any 10 s). A token
 * bucket of N refilled over 10 s lets up to 2N through in some 10 s (a full bucket, then its refill), so the
 * destination paces with the window itself (contract/rate-window.ts): a call may go when fewer than N were
 * sent in the last `perMs`. Memory is the N send times.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RateWindow, type WindowRate } from '../../contract/rate-window.js';
import type { Pace } from '../shared-pace.js';

/** The pace of one process's HubSpot search calls (setup's adoption). */
export class RollingWindow implements Pace {
  readonly #window: RateWindow;
  readonly #now: () => number;

  constructor(rate: WindowRate, now: () => number) {
    this.#window = new RateWindow(rate);
    this.#now = now;
  }

  /** Records a call now when the window has room; false when it has none. */
  take(): boolean {
    return this.#window.take(this.#now());
  }

  /** Ms until the window has room (0 when it has). */
  waitMs(): number {
    return this.#window.waitMs(this.#now());
  }

  /** Waits until the window has room, and takes it. */
  async wait(signal: AbortSignal): Promise<void> {
    while (!this.take()) await sleep(Math.max(1, this.waitMs()), undefined, { signal });
  }
}
