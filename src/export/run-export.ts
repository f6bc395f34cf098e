/**
 * runExport(db, template, options): one export run, as `hooksync export` performs it. A file is written
 * under a temporary name in its folder, flushed to disk and renamed into place, so that readers never see
 * half a file; the --since-last cursor moves only after that, so a failed run repeats instead of skipping,
 * and never past a job still in the normalization queue, whose rows are yet to be written.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { chmod, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { JobChangeStatus, JobKind } from '../contract/enums.js';
import type { Database } from '../storage/database.js';
import { oldestQueuedAt } from '../storage/job-store/normalization-queue.js';
import type { CsvDialectName } from './csv-dialects.js';
import { exportCursorKey, readExportCursor, saveExportCursor } from './export-cursor.js';
import { type ExportFormat, writeInFormat } from './export-formats.js';
import { exportRows, toStoredInstant } from './export-rows.js';
import type { ExportTemplate } from './parse-template.js';

/**
 * How far behind the clock --since-last stops: a row committed a moment late with an earlier received_at
 * (a long transaction, a replica's clock a little behind) still lands in the next run's window.
 */
export const DEFAULT_SETTLE_MS = 5_000;

/** Knobs of one export run. */
export interface RunExportOptions {
  /** A file path, or "-" to write to `stdout`. */
  readonly out: string;
  /** Where "-" writes (required then); never ended by the run. */
  readonly stdout?: Writable | undefined;
  /** csv (default), jsonl or parquet. */
  readonly format?: ExportFormat | undefined;
  /** Overrides the template's dialect (CSV only). */
  readonly dialect?: CsvDialectName | undefined;
  /** Only rows stored at or after this instant; excludes `sinceLast`. */
  readonly since?: Date | string | undefined;
  /** Only rows stored since the last complete run of this template (and kind); moves the cursor. */
  readonly sinceLast?: boolean | undefined;
  readonly kind?: JobKind | undefined;
  /** Only rows of the jobs that found a change of this watch (since when given): the movers of a watch. */
  readonly watchChanges?: { readonly watch: string; readonly since?: Date | string | undefined } | undefined;
  /** Every occurrence of a person, not only the newest. */
  readonly all?: boolean | undefined;
  /** Overrides the template's job_change_status filter (a list keeps job changes only; 'all' filters none). */
  readonly jobChangeStatuses?: readonly JobChangeStatus[] | 'all' | undefined;
  /** Ignore the template's `present` filter (e.g. reveals that found no company). */
  readonly includeEmpty?: boolean | undefined;
  /** Clock in ms (default Date.now). */
  readonly now?: (() => number) | undefined;
  /** Default {@link DEFAULT_SETTLE_MS}. */
  readonly settleMs?: number | undefined;
  readonly onProgress?: ((rows: number) => void) | undefined;
  /** With `sinceLast`: the cursor to use instead of the template's own (a file destination keeps its own). */
  readonly cursorKey?: string | undefined;
  /** Writes no file when no row is new (the cursor still moves); the report's `out` is then undefined. */
  readonly skipEmpty?: boolean | undefined;
  /** Abandons the run (no file, no cursor change), e.g. on SIGINT. */
  readonly signal?: AbortSignal | undefined;
}

/** What a run did. */
export interface ExportReport {
  readonly template: string;
  readonly dialect: CsvDialectName;
  /** The file format written. */
  readonly format: ExportFormat;
  /** Data rows written. */
  readonly rows: number;
  /** The file written (absolute), or "-"; undefined when `skipEmpty` left nothing to write. */
  readonly out: string | undefined;
  /** The window exported: rows stored at or after `since` and before `until` (when bounded). */
  readonly since: string | undefined;
  readonly until: string | undefined;
  /** The cursor moved by --since-last, if any. */
  readonly cursorKey: string | undefined;
}

/** Runs one export; rejects (leaving no file and no cursor change) if anything fails. */
export async function runExport(
  db: Kysely<Database>,
  template: ExportTemplate,
  options: RunExportOptions,
): Promise<ExportReport> {
  if (options.sinceLast === true && options.since !== undefined) {
    throw new TypeError('since and sinceLast exclude each other');
  }
  const now = options.now ?? Date.now;
  const dialect = options.dialect ?? template.dialect;
  const format = options.format ?? 'csv';
  const cursorKey =
    options.sinceLast === true
      ? (options.cursorKey ?? exportCursorKey(template.name, options.kind, format))
      : undefined;
  let since = options.since === undefined ? undefined : toStoredInstant(options.since, 'since');
  let until: string | undefined;
  if (cursorKey !== undefined) {
    since = (await readExportCursor(db, cursorKey))?.cursor;
    until = new Date(now() - (options.settleMs ?? DEFAULT_SETTLE_MS)).toISOString();
    // A job acknowledged but not normalized yet gets rows dated when it was stored, later: stop before it.
    const queued = await oldestQueuedAt(db);
    if (queued !== undefined && queued < until) until = queued;
    // A clock that went back must not move the cursor back: export nothing and keep it.
    if (since !== undefined && since > until) until = since;
  }
  const rows = exportRows(db, template, {
    since,
    until,
    kind: options.kind,
    watchChanges: options.watchChanges,
    all: options.all,
    jobChangeStatuses: options.jobChangeStatuses,
    includeEmpty: options.includeEmpty,
    // CSV is opened by spreadsheets: guarded as the rows are made. Typed formats keep values as stored.
    formulaGuard: format === 'csv',
  });
  const write = (stream: Writable) =>
    writeInFormat(format, template, rows, stream, {
      dialect,
      onProgress: options.onProgress,
      signal: options.signal,
    });

  let written: number;
  let out: string | undefined;
  if (options.out === '-') {
    if (options.stdout === undefined) throw new TypeError('out "-" needs a stdout stream');
    written = await write(options.stdout);
    out = '-';
  } else {
    out = resolve(options.out);
    const keep = options.skipEmpty === true ? (count: number) => count > 0 : () => true;
    written = await writeFileAtomically(out, write, keep);
    if (!keep(written)) out = undefined;
  }
  if (cursorKey !== undefined && until !== undefined) {
    await saveExportCursor(db, {
      key: cursorKey,
      cursor: until,
      rows: written,
      updatedAt: new Date(now()).toISOString(),
    });
  }
  return { template: template.name, dialect, format, rows: written, out, since, until, cursorKey };
}

/** Mode of an exported file: its rows hold personal data, so only its owner reads it. */
export const EXPORT_FILE_MODE = 0o600;

/**
 * Writes through a temporary file in the same folder, fsyncs it, then renames it over `path`; when `keep`
 * says no to the result, the temporary file is removed instead. The file is {@link EXPORT_FILE_MODE}
 * whatever the umask (the rename keeps the temporary file's mode).
 */
async function writeFileAtomically<T>(
  path: string,
  write: (stream: Writable) => Promise<T>,
  keep: (result: T) => boolean = () => true,
): Promise<T> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const stream = createWriteStream(temporary, {
    flags: 'wx',
    mode: EXPORT_FILE_MODE,
    highWaterMark: 64 * 1024,
  });
  let renamed = false;
  try {
    await once(stream, 'open').catch((error: NodeJS.ErrnoException) => {
      // Name the file asked for, not the temporary one beside it.
      const why = error.code === 'ENOENT' ? `the folder ${dirname(path)} does not exist` : error.code;
      throw new Error(`cannot write ${path}: ${why ?? error.message}`, { cause: error });
    });
    // The umask may have taken bits away (never added any): set exactly the mode meant.
    await chmod(temporary, EXPORT_FILE_MODE);
    const result = await write(stream);
    stream.end();
    await finished(stream);
    if (!keep(result)) return result;
    // fsync through a second descriptor: it flushes the file, whichever descriptor wrote it.
    const handle = await open(temporary, 'r');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    renamed = true;
    return result;
  } finally {
    if (!renamed) {
      stream.destroy();
      await unlink(temporary).catch(() => undefined);
    }
  }
}
