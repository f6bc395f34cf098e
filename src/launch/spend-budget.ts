/**
 * A spend limit that holds when answers carry no price yet (issue 28 part 2): every call reserves what it
 * may cost before it is sent, and the reservation stands until the job says what it cost. Shared by
 * `hooksync launch --max-usd` and a watch's `max_usd_per_cycle`; it knows nothing of the CLI or the service.
 *
 * What a call reserves, per unit (a job, or a person of a Search Contact page):
 * 1. the highest price per unit seen for its price key (this budget's settled answers, and what the caller
 *    taught it with {@link SpendBudget.learnPrice}, e.g. from earlier runs);
 * 2. else the configured estimate for the key;
 * 3. else, never priced and no estimate (the interface publishes no price list): everything the budget has
 *    left, so that the call goes alone and nothing else starts until its price is known.
 * A job's own cost can still pass what is left when it costs more than any price seen (or when its key was
 * never priced): no budget can know a price nobody has said.
 */

/** Knobs of a {@link SpendBudget}. */
export interface SpendBudgetConfig {
  /** The limit in USD (finite, >= 0). */
  readonly capUsd: number;
  /** Price per unit, in USD, to reserve for a key before any answer has priced it. */
  readonly estimatesUsd?: Readonly<Record<string, number>> | undefined;
}

/** One call's claim on the budget, from before it is sent until its cost is known. */
export interface Reservation {
  /** The price key it was reserved under. */
  readonly key: string;
  /** What it holds, in USD. */
  readonly usd: number;
  /**
   * The job's cost is known: `totalUsd` (its usage.total_usd) replaces the reservation, and `units` (default
   * the units reserved) teaches the key's price per unit. Throws TypeError for a negative or non-finite total.
   */
  settle(totalUsd: number, units?: number): void;
  /**
   * The call is over but the job has not said what it cost (a RUNNING answer, an unreadable total): the
   * reservation stays counted until {@link settle} (a finished copy arrived) or, if nothing was bought, release.
   */
  hold(): void;
  /** Nothing was bought (not sent, refused): the reservation is given back. */
  release(): void;
}

/** True for a usable usage.total_usd: a finite number >= 0. */
export function isValidUsd(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function assertUsd(name: string, value: number): void {
  if (!isValidUsd(value)) throw new TypeError(`${name} must be a finite number >= 0, got ${String(value)}`);
}

/** The spend limit: spent (settled costs) plus reserved never passes the cap when a call is admitted. */
export class SpendBudget {
  readonly capUsd: number;
  readonly #estimates: ReadonlyMap<string, number>;
  readonly #prices = new Map<string, number>();
  #spentUsd = 0;
  #reservedUsd = 0;
  #open = 0;
  #held = 0;
  #waiters: (() => void)[] = [];

  constructor(config: SpendBudgetConfig) {
    assertUsd('capUsd', config.capUsd);
    this.capUsd = config.capUsd;
    const estimates = new Map<string, number>();
    for (const [key, usd] of Object.entries(config.estimatesUsd ?? {})) {
      assertUsd(`estimatesUsd.${key}`, usd);
      estimates.set(key, usd);
    }
    this.#estimates = estimates;
  }

  /** Settled costs, in USD. */
  get spentUsd(): number {
    return this.#spentUsd;
  }

  /** Reservations not settled yet (in flight and held), in USD. */
  get reservedUsd(): number {
    return this.#reservedUsd;
  }

  /** Reservations whose call is still in flight (not held, settled or released). */
  get inFlight(): number {
    return this.#open;
  }

  /** Reservations held for calls that are over but unpriced (RUNNING). */
  get held(): number {
    return this.#held;
  }

  /** The price per unit a call under `key` reserves, or undefined when the key was never priced. */
  priceOf(key: string): number | undefined {
    return this.#prices.get(key) ?? this.#estimates.get(key);
  }

  /**
   * Teaches a price seen elsewhere (an earlier run's answers): kept when higher than what is known. A free
   * answer (0) teaches nothing: a reveal that found no company says nothing of what the next one costs.
   */
  learnPrice(key: string, totalUsd: number, units = 1): void {
    assertUsd('totalUsd', totalUsd);
    if (totalUsd === 0) return;
    const unit = units > 0 ? totalUsd / units : totalUsd;
    if (unit > (this.#prices.get(key) ?? -1)) this.#prices.set(key, unit);
  }

  /**
   * Counts the cost of a job bought without a reservation of this budget (by an earlier run of the same
   * limit, say) and learns its price. Throws TypeError for a negative or non-finite total.
   */
  charge(key: string, totalUsd: number, units = 1): void {
    assertUsd('totalUsd', totalUsd);
    this.#spentUsd += totalUsd;
    this.learnPrice(key, totalUsd, units);
    this.#wake();
  }

  /**
   * Admits a call of `units` under `key` when the budget can hold its reservation (see the module comment
   * for what is reserved); undefined when it cannot now. A refused call may fit once an in-flight one
   * settles below its reservation: {@link whenSettled} says when to ask again.
   */
  tryReserve(key: string, units = 1): Reservation | undefined {
    const left = this.capUsd - this.#spentUsd - this.#reservedUsd;
    const price = this.priceOf(key);
    const usd = price === undefined ? left : price * units;
    // A never-priced call needs something left; a priced one, room for its whole price (1e-9: float sums).
    if (price === undefined ? left <= 1e-9 : usd > left + 1e-9) return undefined;
    this.#reservedUsd += usd;
    this.#open += 1;
    let state: 'open' | 'held' | 'done' = 'open';
    const close = (): void => {
      if (state === 'open') this.#open -= 1;
      else if (state === 'held') this.#held -= 1;
      state = 'done';
      this.#reservedUsd = Math.max(0, this.#reservedUsd - usd);
      this.#wake();
    };
    return {
      key,
      usd,
      settle: (totalUsd, settledUnits = units) => {
        assertUsd('totalUsd', totalUsd);
        if (state === 'done') return;
        close();
        this.#spentUsd += totalUsd;
        this.learnPrice(key, totalUsd, settledUnits);
      },
      hold: () => {
        if (state !== 'open') return;
        state = 'held';
        this.#open -= 1;
        this.#held += 1;
        this.#wake();
      },
      release: () => {
        if (state !== 'done') close();
      },
    };
  }

  /** Resolves when a reservation next settles, is held or is released (at once when none is in flight). */
  whenSettled(): Promise<void> {
    if (this.#open === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
