/**
 * The simulated account's prepaid balance in integer micro-dollars. A launch whose charge exceeds what is
 * left is refused with QUOTA_ACCOUNT_OVER_QUOTA (402) and charged nothing.
 */
import { ServiceError } from '../errors.js';
import type { Charge } from './price-table.js';

/** The balance of the one simulated account. */
export class AccountBalance {
  readonly #initialMicros: number;
  #micros: number;

  constructor(initialMicros: number) {
    if (!Number.isSafeInteger(initialMicros) || initialMicros < 0) {
      throw new TypeError(
        `the balance must be a non-negative integer of micro-dollars, got ${initialMicros}`,
      );
    }
    this.#initialMicros = initialMicros;
    this.#micros = initialMicros;
  }

  /** What is left, in micro-dollars. */
  get micros(): number {
    return this.#micros;
  }

  /**
   * Takes `charge` and returns the balance left. An empty balance refuses every launch, even a free one
   * (the account is over quota); a charge larger than what is left is refused too.
   */
  take(charge: Charge): number {
    if (this.#micros <= 0 || charge.totalMicros > this.#micros) {
      throw new ServiceError({
        status: 402,
        code: 'QUOTA_ACCOUNT_OVER_QUOTA',
        category: 'QUOTA',
        message: 'Account is over quota: the balance does not cover this job',
      });
    }
    this.#micros -= charge.totalMicros;
    return this.#micros;
  }

  /** Puts the balance back to its starting amount. */
  reset(): void {
    this.#micros = this.#initialMicros;
  }
}
