/**
 * The SQL of an export, the same on SQLite and Postgres: each branch of the source selects the template's
 * fields with the row filters applied, branches are joined by UNION ALL, rows come out oldest first.
 * Duplicates (one person in several jobs) are dropped in the database, never with a set of keys in memory:
 * persons by NOT EXISTS a newer row with the same indexed identity (an index probe per row, no sort, so a
 * million persons stream in flat memory), companies and job changes by ROW_NUMBER() over their identity
 * (their identities have no index to probe). Each row comes back as one JSON array of its fields.
 */
import { type Kysely, type RawBuilder, type SelectQueryBuilder, SqliteAdapter, sql } from 'kysely';
import type { JobKind } from '../contract/enums.js';
import type { Database } from '../storage/database.js';
import {
  type ExportSource,
  isReadByExport,
  resolveFieldPath,
  type SourceBranch,
  type SourceField,
} from './export-sources.js';

/** What rows an export query returns. */
export interface ExportQueryOptions {
  /** Only rows stored at or after this instant (ISO 8601 UTC, as hooksync stores received_at). */
  readonly since?: string | undefined;
  /** Only rows stored before this instant (exclusive). */
  readonly until?: string | undefined;
  /** Only rows from jobs of this kind (one of the source's kinds). */
  readonly kind?: JobKind | undefined;
  /** Only rows of this one job (a destination sends a job's rows with its event). */
  readonly jobId?: string | undefined;
  /** Only rows of these jobs (a batching destination reads its batch's rows in one query). */
  readonly jobIds?: readonly string[] | undefined;
  /**
   * Only rows of the jobs that found a change of this watch (watch_changes, src/watches/), detected at or
   * after `since` when given: `export --watch NAME --changes-since 7d`.
   */
  readonly watchChanges?: { readonly watch: string; readonly since?: string | undefined } | undefined;
  /** Rows from Job Changes only with one of these statuses; undefined keeps every status. */
  readonly jobChangeStatuses?: readonly string[] | undefined;
  /** With `jobChangeStatuses`: drop the rows that are not job changes too (a status asked for explicitly). */
  readonly onlyJobChanges?: boolean | undefined;
  /** Field names whose value must be non-empty. */
  readonly present?: readonly string[] | undefined;
  /** Keep only the newest row per person (or company). */
  readonly dedupe: boolean;
  /**
   * Append each row's job_id and position to its array, after the fields (for the fields read from the
   * envelope). Filters on such fields (`present`) are left to the caller.
   */
  readonly withKeys?: boolean | undefined;
}

/**
 * A row of the query: the selected fields packed into one JSON array, `r` (text on SQLite, parsed by pg on
 * Postgres). One array per row instead of an object with a property per field: building those objects
 * took a large share of an export's time.
 */
export interface ExportQueryRow {
  readonly r: unknown;
}

type Aliases = Readonly<Record<'p' | 'jc' | 'c', string>>;
const ROW: Aliases = { p: 'p', jc: 'jc', c: 'c' };
/** The same branch again, for the newer rows a row is compared with. */
const NEWER: Aliases = { p: 'n', jc: 'njc', c: 'nc' };
const ORDER = 'k_received_at, k_job_id, k_position';

/** The SQL alias of the i-th selected field (field names hold dots, aliases must not). */
function fieldAlias(index: number): string {
  return `f${index}`;
}

function render(fragment: string, aliases: Aliases): string {
  return fragment.replaceAll('{p}', aliases.p).replaceAll('{jc}', aliases.jc).replaceAll('{c}', aliases.c);
}

/** Builds the streaming query; throws TypeError when `kind` is not one of the source's kinds. */
export function buildExportQuery(
  db: Kysely<Database>,
  source: ExportSource,
  fields: readonly SourceField[],
  options: ExportQueryOptions,
): SelectQueryBuilder<Database & { x: Record<string, unknown> }, 'x', ExportQueryRow> {
  const { kind } = options;
  if (kind !== undefined && !source.kinds.includes(kind)) {
    throw new TypeError(`source ${source.name} has rows of kind ${source.kinds.join(' or ')}, not ${kind}`);
  }
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const branches = source.branches
    .map((branch, index) => ({ branch, index }))
    .filter(({ branch }) => kind === undefined || branch.kinds.includes(kind));
  const window = options.dedupe && branches.some(({ branch }) => branch.windowKey !== undefined);
  const union = sql.join(
    branches.map(({ branch, index }) => branchQuery(source, branch, index, fields, options, window)),
    sql` UNION ALL `,
  );
  const columns = fields.map((_, i) => sql.raw(`x.${fieldAlias(i)}`));
  if (options.withKeys === true) columns.push(sql.raw('x.k_job_id'), sql.raw('x.k_position'));
  const packed = sql<unknown>`${sql.raw(sqlite ? 'json_array' : 'json_build_array')}(${sql.join(
    columns,
  )})`.as('r');
  if (window) {
    const ranked = sql`SELECT u.*, ROW_NUMBER() OVER (PARTITION BY u.k_key ORDER BY u.k_received_at DESC, u.k_job_id DESC, u.k_position DESC) AS k_rank FROM (${union}) u`;
    return db
      .selectFrom(sql<Record<string, unknown>>`(${ranked})`.as('x'))
      .select(packed)
      .where(sql<boolean>`x.k_rank = 1`)
      .orderBy(sql.raw(ORDER));
  }
  if (sqlite) {
    // SQLite drops a subquery's ORDER BY when the outer query has one, and then sorts every row in a temp
    // B-tree. Ordered inside, each branch walks its received_at index and the branches are merged: no sort.
    return db
      .selectFrom(sql<Record<string, unknown>>`(${union} ORDER BY ${sql.raw(ORDER)})`.as('x'))
      .select(packed);
  }
  return db
    .selectFrom(sql<Record<string, unknown>>`(${union})`.as('x'))
    .select(packed)
    .orderBy(sql.raw(ORDER));
}

function branchQuery(
  source: ExportSource,
  branch: SourceBranch,
  index: number,
  fields: readonly SourceField[],
  options: ExportQueryOptions,
  window: boolean,
): RawBuilder<unknown> {
  const at = (fragment: string): RawBuilder<unknown> => sql.raw(render(fragment, ROW));
  const selections = [
    ...fields.map((field, i) => sql`${at(fieldSql(field, index))} AS ${sql.raw(fieldAlias(i))}`),
    sql`${at(branch.receivedAt)} AS k_received_at`,
    sql`${at(branch.jobId)} AS k_job_id`,
    sql`${at(branch.position)} AS k_position`,
  ];
  if (window) {
    const key = branch.windowKey ?? `'row:' || ${branch.jobId} || ':' || CAST(${branch.position} AS TEXT)`;
    selections.push(sql`${at(key)} AS k_key`);
  }
  const conditions = filters(source, branch, index, options, ROW);
  if (options.dedupe && branch.identities !== undefined)
    conditions.push(...newestOnly(source, branch, index, options));
  const where = conditions.length === 0 ? sql`` : sql` WHERE ${sql.join(conditions, sql` AND `)}`;
  return sql`SELECT ${sql.join(selections)} FROM ${at(branch.from)}${where}`;
}

function fieldSql(field: SourceField, branchIndex: number): string {
  const fragment = field.sql[branchIndex] ?? field.sql[0];
  if (fragment === undefined) throw new TypeError(`field ${field.name} has no SQL`);
  return fragment;
}

/** The row filters of one branch, rendered for the given table aliases. */
function filters(
  source: ExportSource,
  branch: SourceBranch,
  index: number,
  options: ExportQueryOptions,
  aliases: Aliases,
): RawBuilder<unknown>[] {
  const at = (fragment: string): RawBuilder<unknown> => sql.raw(render(fragment, aliases));
  const conditions: RawBuilder<unknown>[] = [];
  if (branch.where !== undefined) conditions.push(at(branch.where));
  if (options.since !== undefined) conditions.push(sql`${at(branch.receivedAt)} >= ${options.since}`);
  if (options.until !== undefined) conditions.push(sql`${at(branch.receivedAt)} < ${options.until}`);
  if (options.kind !== undefined) conditions.push(sql`${at(branch.kind)} = ${options.kind}`);
  if (options.jobId !== undefined) conditions.push(sql`${at(branch.jobId)} = ${options.jobId}`);
  const { jobIds } = options;
  if (jobIds !== undefined) {
    conditions.push(
      jobIds.length === 0
        ? sql`1 = 0`
        : sql`${at(branch.jobId)} IN (${sql.join(jobIds.map((jobId) => sql`${jobId}`))})`,
    );
  }
  const watched = options.watchChanges;
  if (watched !== undefined) {
    const since = watched.since === undefined ? sql`` : sql` AND wc.detected_at >= ${watched.since}`;
    conditions.push(
      sql`${at(branch.jobId)} IN (SELECT wc.job_id FROM watch_changes wc WHERE wc.watch = ${watched.watch}${since})`,
    );
  }
  const statuses = options.jobChangeStatuses;
  if (statuses !== undefined && branch.jobChangeStatus !== undefined) {
    // Rows that are not job changes (Search Contact persons) pass a template's status filter untouched;
    // statuses asked for explicitly keep job changes only.
    const listed =
      statuses.length === 0
        ? sql`1 = 0`
        : sql`${at(branch.jobChangeStatus)} IN (${sql.join(statuses.map((s) => sql`${s}`))})`;
    conditions.push(
      options.onlyJobChanges === true
        ? sql`(${at(branch.isJobChange)}) AND ${listed}`
        : sql`(NOT (${at(branch.isJobChange)}) OR ${listed})`,
    );
  }
  for (const path of options.present ?? []) {
    const resolved = resolveFieldPath(source, path);
    if (resolved === undefined) throw new TypeError(`field ${path} is not in source ${source.name}`);
    // Not a column: the caller filters on it once the value is read from the envelope.
    if (isReadByExport(resolved.field)) continue;
    const column = at(fieldSql(resolved.field, index));
    conditions.push(
      resolved.field.type === 'text' || resolved.field.type === 'timestamp'
        ? sql`(${column} IS NOT NULL AND ${column} <> '')`
        : sql`${column} IS NOT NULL`,
    );
  }
  return conditions;
}

/**
 * Keeps a row only if no newer row of the branch, passing the same filters, has its identity: the first
 * non-null of `identities` (person_id, then linkedin_url). One NOT EXISTS per identity, each an index probe.
 */
function newestOnly(
  source: ExportSource,
  branch: SourceBranch,
  index: number,
  options: ExportQueryOptions,
): RawBuilder<unknown>[] {
  const row = (fragment: string): RawBuilder<unknown> => sql.raw(render(fragment, ROW));
  const newer = (fragment: string): RawBuilder<unknown> => sql.raw(render(fragment, NEWER));
  const [nRec, nJob, nPos] = [newer(branch.receivedAt), newer(branch.jobId), newer(branch.position)];
  const [rRec, rJob, rPos] = [row(branch.receivedAt), row(branch.jobId), row(branch.position)];
  const isNewer = sql`(${nRec} > ${rRec} OR (${nRec} = ${rRec} AND (${nJob} > ${rJob} OR (${nJob} = ${rJob} AND ${nPos} > ${rPos}))))`;
  const newerFilters = filters(source, branch, index, options, NEWER);
  const identities = branch.identities ?? [];
  return identities.map((identity, i) => {
    const earlier = identities.slice(0, i);
    const skip = [...earlier.map((e) => sql`${row(e)} IS NOT NULL`), sql`${row(identity)} IS NULL`];
    const match = [
      ...earlier.map((e) => sql`${newer(e)} IS NULL`),
      sql`${newer(identity)} = ${row(identity)}`,
    ];
    const where = sql.join([...match, isNewer, ...newerFilters], sql` AND `);
    return sql`(${sql.join(skip, sql` OR `)} OR NOT EXISTS (SELECT 1 FROM ${newer(branch.from)} WHERE ${where}))`;
  });
}
