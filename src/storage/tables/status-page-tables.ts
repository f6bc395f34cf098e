/** The table the status page owns (server/status-page/ui-sessions.ts); declared here, as storage may not import the server. */
/** Signed-in status page sessions; signing out deletes the row (migration 005). */
export interface UiSessionsTable {
  /** Random id, named by the session cookie. */
  id: string;
  created_at: string;
  /** ISO instant after which the session no longer counts. */
  expires_at: string;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface StatusPageTables {
  ui_sessions: UiSessionsTable;
}
