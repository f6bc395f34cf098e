/**
 * A watch's source as its cycle sees it: each row built with the cycle's plan (launch's own code) into its key
 * and request, or its problems; streamed, in batches for the database, and counted against the cycle. A
 * file's row is keyed by its request, as a launch row is; a CRM contact by its record id, so that what was
 * known of a contact survives an edit of its e-mail or name in the CRM.
 */

import type { Kysely } from 'kysely';
import type { AnswerLimits } from '../client/answer-budget.js';
import { boundOutsideText } from '../contract/outside-text.js';
import { StorageError } from '../errors.js';
import { buildRequest, type RequestPlan } from '../launch/build-request.js';
import { readRows } from '../launch/read-rows.js';
import type { Database } from '../storage/database.js';
import type { WatchDefinition } from './load-watches.js';
import { crmRows, crmSourceName, WatchSourceError } from './sources/crm-source.js';
import { watchRowKey } from './watch-plan.js';
import { keysCheckedIn } from './watch-store.js';

/** Rows looked up in the database at once. */
const BATCH = 200;
/** Invalid rows named in the warning. */
const PROBLEMS_SHOWN = 5;

/** A row of the source, built: its key and request, or its problems (`where`: the line, or the record). */
export type WatchedRow =
  | { readonly line: number; readonly key: string; readonly request: Record<string, unknown> }
  | { readonly line: number; readonly where: string; readonly problems: readonly string[] };

/** How messages name the watch's source: its file, or the CRM destination it reads. */
export function sourceName(watch: WatchDefinition): string {
  return watch.source.kind === 'file' ? watch.source.file : crmSourceName(watch.source);
}

/**
 * The source's rows, built with the cycle's plan, streamed. `db` holds a CRM destination's shared pace.
 * A source that fails while read (a CRM that refuses, a file that cannot be read) throws WatchSourceError
 * naming it; a broken database throws its StorageError.
 */
export async function* watchedRows(
  watch: WatchDefinition,
  plan: RequestPlan,
  db: Kysely<Database>,
  answers?: AnswerLimits,
): AsyncGenerator<WatchedRow> {
  try {
    yield* builtRows(watch, plan, db, answers);
  } catch (error) {
    if (error instanceof StorageError || error instanceof WatchSourceError) throw error;
    // A source's own words (a CRM's answer, a file's name or line) reach the log and the status page bounded.
    const reason = boundOutsideText(error instanceof Error ? error.message : String(error));
    throw new WatchSourceError(`${sourceName(watch)} cannot be read (${reason})`, { cause: error });
  }
}

async function* builtRows(
  watch: WatchDefinition,
  plan: RequestPlan,
  db: Kysely<Database>,
  answers: AnswerLimits | undefined,
): AsyncGenerator<WatchedRow> {
  const { source } = watch;
  if (source.kind !== 'file') {
    for await (const row of crmRows(source, db, answers)) {
      if (!('cells' in row)) continue;
      const where = `contact ${row.id}`;
      const built = buildRequest(plan, row.cells);
      if (built.problems !== undefined) {
        yield { line: row.line, where, problems: built.problems };
        continue;
      }
      const key = watchRowKey(watch, { custom_fields: { [source.reader.idKey]: row.id } });
      yield { line: row.line, key, request: built.request };
    }
    return;
  }
  for await (const row of readRows(source.file, source.format)) {
    if ('problem' in row) {
      yield { line: row.line, where: `line ${row.line}`, problems: [`line is ${row.problem}`] };
      continue;
    }
    const built = buildRequest(plan, row.cells);
    if (built.problems !== undefined)
      yield { line: row.line, where: `line ${row.line}`, problems: built.problems };
    else yield { line: row.line, key: watchRowKey(watch, built.request), request: built.request };
  }
}

/** What a reading of the source met so far: valid and invalid rows, the first problems. */
export class SourceTally {
  valid = 0;
  invalid = 0;
  readonly problems: string[] = [];

  add(row: WatchedRow): void {
    if ('key' in row) {
      this.valid += 1;
      return;
    }
    this.invalid += 1;
    if (this.problems.length < PROBLEMS_SHOWN) this.problems.push(`${row.where}: ${row.problems.join('; ')}`);
  }
}

/** The valid rows, in batches of the size looked up in the database at once; each row counted in `tally`. */
export async function* batches(
  rows: AsyncGenerator<WatchedRow>,
  tally: SourceTally = new SourceTally(),
): AsyncGenerator<Array<Extract<WatchedRow, { key: string }>>> {
  let batch: Array<Extract<WatchedRow, { key: string }>> = [];
  for await (const row of rows) {
    tally.add(row);
    if (!('key' in row)) continue;
    batch.push(row);
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Counts of one reading of the source against the cycle. */
export interface SourceCount {
  readonly valid: number;
  readonly invalid: number;
  readonly pending: number;
  readonly problems: readonly string[];
}

/** Reads the source once: valid and invalid rows, and how many are not checked in `cycle` yet. */
export async function countSource(
  db: Kysely<Database>,
  watch: WatchDefinition,
  plan: RequestPlan,
  cycle: number,
  answers?: AnswerLimits,
): Promise<SourceCount> {
  const tally = new SourceTally();
  let pending = 0;
  for await (const batch of batches(watchedRows(watch, plan, db, answers), tally)) {
    const done = await keysCheckedIn(
      db,
      watch.name,
      cycle,
      batch.map((row) => row.key),
    );
    pending += batch.length - done.size;
  }
  return { valid: tally.valid, invalid: tally.invalid, pending, problems: tally.problems };
}
