/**
 * The first pass over the file: every row built and checked with the contract before anything is sent.
 * Nothing is kept per row but its problems, so that a file of any length is checked in bounded memory.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import { type BuiltRequest, buildRequest, columnsRead, type RequestPlan } from './build-request.js';
import { countLaunched } from './launch-records.js';
import { addProblem, type LaunchReport } from './launch-report.js';
import { type InputFormat, readRows } from './read-rows.js';
import { rowKey } from './row-key.js';

/** Options of {@link validateRows}. */
export interface ValidateRowsOptions {
  readonly plan: RequestPlan;
  readonly path: string;
  readonly format: InputFormat;
  /** Called with each problem as it is found (the CLI prints it at once). */
  readonly onProblem?: ((line: number, message: string) => void) | undefined;
  /**
   * Called once the header is read, before any row is checked, with the columns the plan names that it
   * lacks (a CSV; never for JSONL): a wrong `--map` column is then the first thing said, not the last of
   * one error per row. Throwing stops the pass.
   */
  readonly onMissingColumns?: ((missingColumns: readonly string[]) => void) | undefined;
  /** Dry run: the database to count rows already launched in, and how many requests to sample. */
  readonly dryRun?: { readonly db: Kysely<Database>; readonly sample: number } | undefined;
}

/** What the first pass found beside the report's counts. */
export interface ValidatedFile {
  /** Valid rows (each one request, or one per page). */
  readonly valid: number;
  /** CSV columns that fill no field and are not carried. */
  readonly unusedColumns: readonly string[];
  /** Columns the plan names that the CSV header lacks. */
  readonly missingColumns: readonly string[];
}

const DRY_RUN_BATCH = 500;

/** Reads every row, fills `report.rows`, `invalid` and `errors` (and the dry-run fields). */
export async function validateRows(
  report: LaunchReport,
  options: ValidateRowsOptions,
): Promise<ValidatedFile> {
  const { plan } = options;
  let header: readonly string[] | undefined;
  let valid = 0;
  let wouldLaunch = 0;
  const sample: Record<string, unknown>[] = [];
  let keys: string[] = [];
  const flushKeys = async (): Promise<void> => {
    if (options.dryRun === undefined || keys.length === 0) return;
    wouldLaunch -= await countLaunched(options.dryRun.db, keys);
    keys = [];
  };
  for await (const row of readRows(options.path, options.format, (columns) => {
    header = columns;
  })) {
    if (report.rows === 0 && header !== undefined) {
      const missing = missingColumnsOf(plan, header);
      if (missing.length > 0) options.onMissingColumns?.(missing);
    }
    report.rows += 1;
    const built: BuiltRequest =
      'problem' in row ? { problems: [`line is ${row.problem}`] } : buildRequest(plan, row.cells);
    if (built.problems !== undefined) {
      report.invalid += 1;
      for (const message of built.problems) {
        addProblem(report, { line: row.line, message });
        options.onProblem?.(row.line, message);
      }
      continue;
    }
    valid += 1;
    if (options.dryRun !== undefined) {
      const pages = plan.pages ?? 1;
      wouldLaunch += pages;
      if (sample.length < options.dryRun.sample) sample.push(built.request);
      if (pages === 1) keys.push(rowKey(plan.operation.name, built.request));
      if (keys.length >= DRY_RUN_BATCH) await flushKeys();
    }
  }
  await flushKeys();
  if (options.dryRun !== undefined) {
    report.would_launch = wouldLaunch;
    report.sample = sample;
  }
  const read = columnsRead(plan);
  const fields = new Set(plan.operation.fields.keys());
  const unusedColumns = (header ?? []).filter((column) => !read.has(column) && !fields.has(column));
  const missingColumns = header === undefined ? [] : missingColumnsOf(plan, header);
  return { valid, unusedColumns, missingColumns };
}

/** The columns `plan` names (`--map`, `--carry`) that `header` lacks. */
function missingColumnsOf(plan: RequestPlan, header: readonly string[]): string[] {
  return [...plan.carry.values(), ...[...plan.columns].filter(([f, c]) => f !== c).map(([, c]) => c)].filter(
    (column) => !header.includes(column),
  );
}
