/**
 * `--max-usd` for a bulk launch, on the shared {@link SpendBudget} rule: prices seen by earlier runs of the
 * operation (launch_rows.usd) are learned first, each request reserves before it is claimed, a RUNNING
 * answer keeps its reservation until the finished job (stored by `serve` from its callback, or by
 * reconcile) says what it cost, and the run stops when nothing it may still learn could make room.
 */
import { type Kysely, sql } from 'kysely';
import { isPlainObject } from '../contract/custom-fields.js';
import { isTerminalStatus } from '../contract/enums.js';
import { parseJsonText } from '../contract/json.js';
import type { Database } from '../storage/database.js';
import { decodeEnvelope } from '../storage/envelope-codec.js';
import type { LaunchOperation } from './launch-operations.js';
import { isValidUsd, type Reservation, SpendBudget } from './spend-budget.js';

/** The Usage object's total of a job envelope: a price, 'invalid' (present but not a price), or undefined. */
export function totalUsdOf(job: unknown): number | 'invalid' | undefined {
  const output = isPlainObject(job) ? job.output : undefined;
  const usage = isPlainObject(output) && isPlainObject(output.usage) ? output.usage : undefined;
  if (usage === undefined || !('total_usd' in usage)) return undefined;
  return isValidUsd(usage.total_usd) ? usage.total_usd : 'invalid';
}

/** Persons on a Search Contact page, or undefined for an answer without output.persons. */
export function personsOf(job: unknown): number | undefined {
  const output = isPlainObject(job) ? job.output : undefined;
  return isPlainObject(output) && Array.isArray(output.persons) ? output.persons.length : undefined;
}

/** Units a request reserves: persons of a Search Contact page (page_size, default 10), else one job. */
export function unitsOf(operation: LaunchOperation, request: Record<string, unknown>): number {
  if (operation !== 'search') return 1;
  return typeof request.page_size === 'number' && request.page_size > 0 ? request.page_size : 10;
}

/** Where a RUNNING answer's reservation waits for its job's finished copy (LaunchBudget, a watch's CycleBudget). */
export interface ReservationHolder {
  hold(jobId: string, reservation: Reservation): void;
}

/**
 * Settles `reservation` by the answer to its call (launch and watches alike): at the job's price when the
 * answer says one; else held, under the job id by `holder` while the job runs (its finished copy will say the
 * price), and at what it reserved when the job is over (no later copy will say more).
 */
export function settleReservation(
  reservation: Reservation,
  answer: { readonly job_id: string; readonly status: string; readonly response: { readonly job: unknown } },
  operation: LaunchOperation,
  holder: ReservationHolder | undefined,
): void {
  const { job } = answer.response;
  const total = totalUsdOf(job);
  // A search is priced per person of its page; an answer without persons found none.
  if (typeof total === 'number')
    reservation.settle(total, operation === 'search' ? (personsOf(job) ?? 0) : 1);
  else if (!isTerminalStatus(answer.status) && holder !== undefined) holder.hold(answer.job_id, reservation);
  else reservation.hold();
}

/** Re-checking the store for finished copies of held jobs at most this often. */
const STORE_CHECK_INTERVAL_MS = 1000;

/** The budget of one launch run. */
export class LaunchBudget implements ReservationHolder {
  readonly budget: SpendBudget;
  readonly #db: Kysely<Database>;
  readonly #operation: LaunchOperation;
  readonly #now: () => number;
  readonly #held = new Map<string, Reservation>();
  #checkedAtMs = Number.NEGATIVE_INFINITY;

  private constructor(
    db: Kysely<Database>,
    operation: LaunchOperation,
    budget: SpendBudget,
    now: () => number,
  ) {
    this.#db = db;
    this.#operation = operation;
    this.budget = budget;
    this.#now = now;
  }

  /** A budget of `capUsd` for `operation`, knowing the highest price its earlier launches were charged. */
  static async open(
    db: Kysely<Database>,
    operation: LaunchOperation,
    options: { capUsd: number; estimateUsd?: number | undefined; now: () => number },
  ): Promise<LaunchBudget> {
    const budget = new SpendBudget({
      capUsd: options.capUsd,
      estimatesUsd: options.estimateUsd === undefined ? {} : { [operation]: options.estimateUsd },
    });
    const usd = sql<number>`cast(usd as double precision)`;
    // Search is priced per person of the page; the other two per job.
    const unit = operation === 'search' ? sql<number>`${usd} / nullif(result_count, 0)` : usd;
    const row = await db
      .selectFrom('launch_rows')
      .select(sql<number | string | null>`max(${unit})`.as('price'))
      .where('operation', '=', operation)
      .where('usd', 'is not', null)
      .executeTakeFirst();
    const price = row?.price === null || row?.price === undefined ? undefined : Number(row.price);
    if (isValidUsd(price)) budget.learnPrice(operation, price);
    return new LaunchBudget(db, operation, budget, options.now);
  }

  /**
   * A reservation for `request`, waiting while calls in flight may free room; undefined when the budget
   * cannot hold it (or `stopped` says the run is over).
   */
  async reserve(request: Record<string, unknown>, stopped: () => boolean): Promise<Reservation | undefined> {
    const units = unitsOf(this.#operation, request);
    while (!stopped()) {
      const reservation = this.budget.tryReserve(this.#operation, units);
      if (reservation !== undefined) return reservation;
      // With nothing in flight, this is the last chance to learn: the store is read whatever the interval.
      if (await this.#settleFinished(this.budget.inFlight === 0)) continue;
      if (this.budget.inFlight === 0) return undefined;
      await this.budget.whenSettled();
    }
    return undefined;
  }

  /** Keeps the reservation of a launched job whose answer carried no price, until its finished copy does. */
  hold(jobId: string, reservation: Reservation): void {
    reservation.hold();
    this.#held.set(jobId, reservation);
  }

  /** Why the budget refused, as the run's stop line says it. */
  describe(): string {
    const spent = this.budget.spentUsd.toFixed(2);
    const held = this.#held.size;
    const reserved =
      held === 0
        ? ''
        : ` and $${this.budget.reservedUsd.toFixed(2)} reserved for ${held} job${held === 1 ? '' : 's'} still RUNNING`;
    return `budget reached: $${spent} spent${reserved} of --max-usd ${this.budget.capUsd}`;
  }

  /** Settles held jobs whose finished copy is stored; true when any was. */
  async #settleFinished(force: boolean): Promise<boolean> {
    if (this.#held.size === 0) return false;
    if (!force && this.#now() - this.#checkedAtMs < STORE_CHECK_INTERVAL_MS) return false;
    this.#checkedAtMs = this.#now();
    const rows = await this.#db
      .selectFrom('jobs')
      .select(['job_id', 'status', 'envelope_z'])
      .where('job_id', 'in', [...this.#held.keys()])
      .execute();
    let settled = false;
    for (const row of rows) {
      if (!isTerminalStatus(row.status)) continue;
      const job = parseJsonText(decodeEnvelope(row.envelope_z));
      const total = totalUsdOf(job);
      if (total === 'invalid' || total === undefined) continue;
      const reservation = this.#held.get(row.job_id);
      this.#held.delete(row.job_id);
      reservation?.settle(total, this.#operation === 'search' ? (personsOf(job) ?? 0) : 1);
      settled = true;
    }
    return settled;
  }
}
