/**
 * Runs a statement written with Kysely for each of a list of rows, the fastest way each dialect allows.
 * Postgres: multi-row statements in chunks under the parameter limit, one round trip each. SQLite: one
 * statement, compiled by Kysely once and prepared once on the connection (through the connection's one
 * statement cache), then run row by row with each row's values: better-sqlite3 runs a prepared statement
 * without leaving the thread. The SQL is Kysely's in both.
 */
import type { CompiledQuery, Kysely } from 'kysely';
import { chunkForParameters } from '../chunk-for-parameters.js';
import type { Database } from '../database.js';

/** A statement for some rows: what Kysely's builders return (insert … values(rows) …). */
export interface RowsStatement<O> {
  compile(): CompiledQuery<O>;
  execute(): Promise<O[]>;
}

/** Builds the statement for `rows` (each row an object of column values, the same columns in order). */
export type BuildRowsStatement<R, O> = (trx: Kysely<Database>, rows: readonly R[]) => RowsStatement<O>;

/** Runs statements for lists of rows in an open transaction. */
export interface RowRunner {
  /** Runs `build` over `rows`; resolves with what RETURNING gives (nothing without it), in row order. */
  run<R extends object, O>(
    trx: Kysely<Database>,
    rows: readonly R[],
    build: BuildRowsStatement<R, O>,
  ): Promise<O[]>;
  /**
   * Runs `build` (a statement without RETURNING) over `rows` one row at a time, when this runner can, and
   * resolves with how many rows each one changed, in row order; resolves undefined when it cannot count row
   * by row (multi-row statements: Postgres, a fallback), and then has run nothing: the caller asks RETURNING.
   * On SQLite, RETURNING about doubled the CPU of a reveal's inserts (issue 42; bench/store-write.mjs).
   */
  changes?<R extends object>(
    trx: Kysely<Database>,
    rows: readonly R[],
    build: BuildRowsStatement<R, unknown>,
  ): Promise<number[] | undefined>;
}

/**
 * What the SQLite runner uses of a connection: the statement cache Kysely's driver prepares through
 * (cached-sqlite-database.ts). Structural, so that the declarations this file ships (reachable from the
 * public HooksyncDatabase) name no package whose types are dev-only.
 */
export interface PreparingConnection {
  prepare(sql: string): PreparedRowStatement;
}

/** What the runner uses of a prepared statement. */
export interface PreparedRowStatement {
  readonly reader: boolean;
  all(parameters: ReadonlyArray<unknown>): unknown[];
  run(parameters: ReadonlyArray<unknown>): { readonly changes: number | bigint };
}

/** Multi-row statements in chunks: every dialect, and the fallback. */
export const CHUNKED_ROW_RUNNER: RowRunner = {
  async run(trx, rows, build) {
    const first = rows[0];
    if (first === undefined) return [];
    const results = [];
    for (const chunk of chunkForParameters(rows, Object.keys(first).length)) {
      results.push(...(await build(trx, chunk).execute()));
    }
    return results;
  },
};

/**
 * Where each bound parameter of a one-row statement comes from: `>= 0`, that column of the row; `-1`,
 * the constant at the same place in `constants` (an ON CONFLICT or WHERE value the same for every row).
 */
interface ParameterPlan {
  readonly sql: string;
  readonly sources: readonly number[];
  readonly constants: readonly unknown[];
}

/** Stands for column `index` while the statement is compiled: no real value is a string like it. */
const placeholder = (index: number) => `\u0000hooksync row-runner column ${index}\u0000`;

/**
 * Compiles `build` over one row of placeholders and finds each placeholder among the parameters, so that
 * no assumption is made about the order in which Kysely binds a row's values. Undefined when a column's
 * placeholder did not come through as a bound parameter as is (the statement does something with the
 * value itself): the caller then runs Kysely's own multi-row statements.
 */
function planParameters<R extends object, O>(
  trx: Kysely<Database>,
  columns: readonly string[],
  build: BuildRowsStatement<R, O>,
): ParameterPlan | undefined {
  const row = Object.fromEntries(columns.map((column, index) => [column, placeholder(index)])) as R;
  const compiled = build(trx, [row]).compile();
  const byPlaceholder = new Map(columns.map((_, index) => [placeholder(index), index]));
  const seen = new Set<number>();
  const sources = compiled.parameters.map((parameter) => {
    const index = typeof parameter === 'string' ? byPlaceholder.get(parameter) : undefined;
    if (index !== undefined) seen.add(index);
    return index ?? -1;
  });
  if (seen.size !== columns.length) return undefined;
  if (compiled.sql.includes('hooksync row-runner column')) return undefined;
  return { sql: compiled.sql, sources, constants: compiled.parameters };
}

/** A value better-sqlite3 binds as Kysely would (not an expression, a Date or undefined). */
function isBindable(value: unknown): boolean {
  if (value === undefined) return false;
  return typeof value !== 'object' || value === null || value instanceof Uint8Array;
}

/**
 * A runner for SQLite that prepares through `connection`, the statement cache of the one connection the
 * Kysely instance writes through (so its statements join the open transaction). Falls back to
 * {@link CHUNKED_ROW_RUNNER} for rows whose columns differ, values it cannot bind as Kysely would, and
 * statements that do not bind each column's value as a parameter.
 */
export function createSqliteRowRunner(connection: PreparingConnection): RowRunner {
  // Each build's plan, by the columns it was compiled for: Kysely builds and compiles a statement only the
  // first time (issue 31: compiling every statement of every batch again cost the store worker ~10 % of its
  // CPU per reveal). A build passed as the same function each time must not capture values that change
  // between calls: they go in the rows. A build made anew per call (an inline closure) is simply compiled
  // each time, as before; the WeakMap lets it go.
  const plans = new WeakMap<object, Map<string, ParameterPlan | null>>();
  const cachedPlan = <R extends object, O>(
    trx: Kysely<Database>,
    columns: readonly string[],
    build: BuildRowsStatement<R, O>,
  ): ParameterPlan | undefined => {
    let byColumns = plans.get(build);
    if (byColumns === undefined) {
      byColumns = new Map();
      plans.set(build, byColumns);
    }
    const key = columns.join('\u0000');
    let plan = byColumns.get(key);
    if (plan === undefined) {
      plan = planParameters(trx, columns, build) ?? null;
      byColumns.set(key, plan);
    }
    return plan ?? undefined;
  };
  /** The statement for `rows` prepared, with each row's parameters; undefined when it cannot run row by row. */
  const rowByRow = <R extends object, O>(
    trx: Kysely<Database>,
    rows: readonly R[],
    build: BuildRowsStatement<R, O>,
  ): { prepared: PreparedRowStatement; each: (run: (parameters: unknown[]) => void) => void } | undefined => {
    const columns = Object.keys(rows[0]!);
    const rowValues = uniformValues(rows, columns);
    const plan = rowValues === undefined ? undefined : cachedPlan(trx, columns, build);
    if (plan === undefined) return undefined;
    const { sources, constants } = plan;
    return {
      prepared: connection.prepare(plan.sql),
      each(run) {
        const parameters: unknown[] = new Array(sources.length);
        for (const values of rowValues!) {
          for (let i = 0; i < sources.length; i++) {
            const source = sources[i]!;
            parameters[i] = source >= 0 ? values[source] : constants[i];
          }
          run(parameters);
        }
      },
    };
  };
  return {
    async run<R extends object, O>(
      trx: Kysely<Database>,
      rows: readonly R[],
      build: BuildRowsStatement<R, O>,
    ): Promise<O[]> {
      if (rows.length === 0) return [];
      const statement = rowByRow(trx, rows, build);
      if (statement === undefined) return CHUNKED_ROW_RUNNER.run(trx, rows, build);
      const { prepared } = statement;
      const results: O[] = [];
      statement.each((parameters) => {
        if (prepared.reader) results.push(...(prepared.all(parameters) as O[]));
        else prepared.run(parameters);
      });
      return results;
    },
    async changes<R extends object>(
      trx: Kysely<Database>,
      rows: readonly R[],
      build: BuildRowsStatement<R, unknown>,
    ): Promise<number[] | undefined> {
      if (rows.length === 0) return [];
      const statement = rowByRow(trx, rows, build);
      if (statement === undefined || statement.prepared.reader) return undefined;
      const { prepared } = statement;
      const changed: number[] = [];
      statement.each((parameters) => changed.push(Number(prepared.run(parameters).changes)));
      return changed;
    },
  };
}

/** Each row's values, when every row has `columns` in that order and only values it can bind; else undefined. */
function uniformValues(rows: readonly object[], columns: readonly string[]): unknown[][] | undefined {
  const all: unknown[][] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (!sameKeys(Object.keys(row), columns)) return undefined;
    const values = Object.values(row);
    if (!values.every(isBindable)) return undefined;
    all[i] = values;
  }
  return all;
}

function sameKeys(keys: readonly string[], columns: readonly string[]): boolean {
  return keys.length === columns.length && keys.every((key, index) => key === columns[index]);
}
