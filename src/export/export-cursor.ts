/**
 * The --since-last cursors (export_cursors table): per template (and --kind), the instant up to which the
 * last complete export carried rows. Written only after the file is in place, so that a failed export is
 * repeated, never skipped.
 */
import type { Kysely } from 'kysely';
import type { JobKind } from '../contract/enums.js';
import type { Database } from '../storage/database.js';
import type { ExportFormat } from './export-formats.js';

/** A stored cursor. */
export interface ExportCursor {
  readonly key: string;
  /** Rows stored before this instant (ISO 8601 UTC) have been exported. */
  readonly cursor: string;
  /** Rows the export that set it wrote. */
  readonly rows: number;
  readonly updatedAt: string;
}

/**
 * The cursor's key: the template name, plus the kind when the export was narrowed to one, plus the format
 * when it is not CSV (a loader pulling Parquet increments and a person pulling CSV do not share a cursor).
 */
export function exportCursorKey(templateName: string, kind?: JobKind, format: ExportFormat = 'csv'): string {
  const key = kind === undefined ? templateName : `${templateName}:${kind}`;
  return format === 'csv' ? key : `${key}@${format}`;
}

/** The cursor under `key`, if an export has set one. */
export async function readExportCursor(db: Kysely<Database>, key: string): Promise<ExportCursor | undefined> {
  const row = await db
    .selectFrom('export_cursors')
    .selectAll()
    .where('template', '=', key)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return { key: row.template, cursor: row.cursor, rows: Number(row.rows), updatedAt: row.updated_at };
}

/** Every stored cursor, by key, at most `limit` of them (the status page's list). */
export async function listExportCursors(db: Kysely<Database>, limit: number): Promise<ExportCursor[]> {
  const rows = await db.selectFrom('export_cursors').selectAll().orderBy('template').limit(limit).execute();
  return rows.map((row) => ({
    key: row.template,
    cursor: row.cursor,
    rows: Number(row.rows),
    updatedAt: row.updated_at,
  }));
}

/** Sets the cursor under `key` (insert or overwrite; one statement, no read first). */
export async function saveExportCursor(db: Kysely<Database>, cursor: ExportCursor): Promise<void> {
  const values = { cursor: cursor.cursor, rows: cursor.rows, updated_at: cursor.updatedAt };
  await db
    .insertInto('export_cursors')
    .values({ template: cursor.key, ...values })
    .onConflict((oc) => oc.column('template').doUpdateSet(values))
    .execute();
}
