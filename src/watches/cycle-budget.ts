/**
 * A cycle's `max_usd_per_cycle` on launch's one spend rule (launch/spend-budget.ts): each check reserves
 * before it is sent; a RUNNING answer's reservation is held under its job id until the finished job says
 * what it cost (settle-pending.ts reads it from the job store), and the checks of this cycle that an
 * earlier run left pending (a restart) are reserved again before any new check is admitted.
 */
import { type ReservationHolder, unitsOf } from '../launch/launch-budget.js';
import type { LaunchOperation } from '../launch/launch-operations.js';
import { type Reservation, SpendBudget } from '../launch/spend-budget.js';

/** The budget of one run of a cycle. */
export class CycleBudget implements ReservationHolder {
  readonly #spend: SpendBudget;
  readonly #operation: LaunchOperation;
  readonly #held = new Map<string, Reservation>();
  /** Pending jobs of this cycle from an earlier run, with their units, not reserved yet. */
  readonly #owed: Array<{ jobId: string; units: number; operation: LaunchOperation }> = [];

  /** `capUsd`: what the cycle may still spend (the limit less what earlier runs of it spent). */
  constructor(capUsd: number, operation: LaunchOperation) {
    this.#spend = new SpendBudget({ capUsd });
    this.#operation = operation;
  }

  /** Checks in flight (admitted, not answered yet). */
  get inFlight(): number {
    return this.#spend.inFlight;
  }

  /** RUNNING answers whose cost is not known yet, this run's and those owed from an earlier one. */
  get held(): number {
    return this.#held.size + this.#owed.length;
  }

  /** Pending checks of this cycle left by an earlier run: reserved before any new check is admitted. */
  owe(jobIds: readonly string[], units: number, operation: LaunchOperation = this.#operation): void {
    for (const jobId of jobIds) if (!this.#held.has(jobId)) this.#owed.push({ jobId, units, operation });
  }

  /** A reservation for `request`, or undefined when the budget cannot hold it now. */
  tryReserve(request: Record<string, unknown>): Reservation | undefined {
    return this.tryReserveFor(this.#operation, unitsOf(this.#operation, request));
  }

  /** A reservation of `units` of `operation` (a play's search in a job-change watch), or undefined. */
  tryReserveFor(operation: LaunchOperation, units: number): Reservation | undefined {
    while (this.#owed.length > 0) {
      const owed = this.#owed[0]!;
      const reservation = this.#spend.tryReserve(owed.operation, owed.units);
      if (reservation === undefined) return undefined;
      this.#owed.shift();
      this.hold(owed.jobId, reservation);
    }
    return this.#spend.tryReserve(operation, units);
  }

  /** Keeps the reservation of a RUNNING answer until {@link settle} is told its job's cost. */
  hold(jobId: string, reservation: Reservation): void {
    reservation.hold();
    this.#held.set(jobId, reservation);
  }

  /**
   * The finished job `jobId` of this cycle cost `totalUsd` (undefined: it did not say; a held reservation
   * stays held) for `units` units. A job this run holds no reservation for (owed from an earlier run, or
   * bought by one) is charged as it is.
   */
  settle(jobId: string, totalUsd: number | undefined, units: number): void {
    if (totalUsd === undefined) return;
    const reservation = this.#held.get(jobId);
    if (reservation !== undefined) {
      this.#held.delete(jobId);
      reservation.settle(totalUsd, units);
      return;
    }
    const owed = this.#owed.findIndex((entry) => entry.jobId === jobId);
    const operation = owed >= 0 ? this.#owed[owed]!.operation : this.#operation;
    if (owed >= 0) this.#owed.splice(owed, 1);
    this.#spend.charge(operation, totalUsd, units);
  }
}
