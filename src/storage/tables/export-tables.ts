/** The table export owns (export/export-cursor.ts); declared here, as storage may not import a feature. */
/** Where `export --since-last` resumes, per template. */
export interface ExportCursorsTable {
  template: string;
  cursor: string;
  rows: number;
  updated_at: string;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface ExportTables {
  export_cursors: ExportCursorsTable;
}
