/**
 * A watch's `max_usd_per_cycle`, never exceeded: what the cycle has spent (recorded, whichever process
 * spent it) plus, for every check in flight, the highest price a check of this watch has cost so far (a
 * reservation, released when the answer says what it cost). Before any answer has shown a price, one check
 * goes at a time.
 *
 * The client stream is writing launch's reservation rule (issue 28 part 2, `--max-usd`); once it lands,
 * this is to be replaced by it (one rule).
 */
export class CycleBudget {
  readonly #maxMicros: number | undefined;
  #spentMicros: number;
  #highestMicros = 0;
  #inFlight = 0;

  constructor(maxUsd: number | undefined, spentMicros: number) {
    this.#maxMicros = maxUsd === undefined ? undefined : Math.round(maxUsd * 1e6);
    this.#spentMicros = spentMicros;
  }

  /** Spent so far this cycle, in millionths of a dollar. */
  get spentMicros(): number {
    return this.#spentMicros;
  }

  /** True when the budget leaves nothing for another check, even with nothing in flight. */
  get exhausted(): boolean {
    if (this.#maxMicros === undefined) return false;
    return this.#spentMicros + this.#highestMicros > this.#maxMicros || this.#spentMicros >= this.#maxMicros;
  }

  /** Takes a reservation for one check; false when it does not fit now (wait for one in flight, or stop). */
  reserve(): boolean {
    if (this.#maxMicros === undefined) {
      this.#inFlight += 1;
      return true;
    }
    if (this.#highestMicros === 0 && this.#inFlight > 0) return false;
    if (this.#spentMicros + (this.#inFlight + 1) * this.#highestMicros > this.#maxMicros) return false;
    if (this.#spentMicros >= this.#maxMicros) return false;
    this.#inFlight += 1;
    return true;
  }

  /** Ends a reservation with what the check cost (0 when nothing was bought). */
  settle(costMicros: number): void {
    this.#inFlight -= 1;
    this.#spentMicros += costMicros;
    if (costMicros > this.#highestMicros) this.#highestMicros = costMicros;
  }
}
