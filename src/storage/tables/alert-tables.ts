/**
 * The tables the alert destinations own (destinations/alerts/, migration 026); declared here, as storage
 * may not import a feature.
 */
import type { Generated } from 'kysely';

/** A message posted for an event to one route target. */
export interface AlertSendsTable {
  destination: string;
  event_id: string;
  /** `<route index>:<target>`. */
  target: string;
  sent_at: string;
}

/** A change a digest route gathered for one target. */
export interface AlertDigestItemsTable {
  id: Generated<number | string>;
  destination: string;
  route: number;
  target: string;
  change_id: string;
  /** JSON: the watch, the kind of change and its words. */
  line: string;
  gathered_at: string;
  /** The digest that took it (null: waiting for the next tick). */
  digest_id: string | null;
  posted_at: string | null;
}

/** These tables as Kysely sees them. */
export interface AlertTables {
  alert_sends: AlertSendsTable;
  alert_digest_items: AlertDigestItemsTable;
}
