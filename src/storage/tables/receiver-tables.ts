/** The table the receiver owns (receiver/create-delivery-stats.ts); declared here, as storage may not import a feature. */
/** Deliveries per hour and outcome (the status page's chart). */
export interface DeliveryStatsTable {
  /** Start of the hour, ISO 8601 UTC (e.g. 2026-11-22T21:00:00.000Z). */
  hour: string;
  /** A DeliveryOutcome: stored, updated, duplicate, replay, fetched, refused, retry_later, overloaded. */
  outcome: string;
  count: number;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface ReceiverTables {
  delivery_stats: DeliveryStatsTable;
}
