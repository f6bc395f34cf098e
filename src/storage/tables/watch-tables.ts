/**
 * The tables watches own (watches/watch-store.ts, migration 014); declared here, as storage may not import
 * a feature.
 */
import type { Generated } from 'kysely';

/** One cycle of a watch. */
export interface WatchCyclesTable {
  watch: string;
  cycle: number;
  started_at: string;
  /** When the next cycle may begin: started_at plus the watch's period. */
  ends_at: string;
  finished_at: string | null;
  /** Valid rows of the source at its latest reading. */
  rows: number;
  checked: number;
  baseline: number;
  changes: number;
  /** Spent this cycle, in millionths of a dollar (a string of digits on Postgres, where it is a bigint). */
  usd_micros: number | string;
  /** Why the cycle stopped before its rows were all checked: quota, max_usd, auth, source. */
  stopped: string | null;
  /** 1 once the cycle said it cannot finish in its period. */
  overrun_noted: number;
  updated_at: string;
}

/** The memory of one watched row. */
export interface WatchRowsTable {
  watch: string;
  /** launch/row-key.ts over the row's request, relative dates as written. */
  row_key: string;
  /** The carried custom_fields, JSON. */
  custom_fields: string;
  /** The last state observed (JSON), null until an answer said something known. */
  state: string | null;
  checked_cycle: number;
  checked_at: string;
  job_id: string | null;
  first_seen_at: string;
  /** The job of the latest check while its answer was RUNNING, until its finished copy is observed (018). */
  pending_job_id: string | null;
}

/** A change a watch found. */
export interface WatchChangesTable {
  id: Generated<number | string>;
  watch: string;
  row_key: string;
  cycle: number;
  /** baseline, moved, left, returned, title, new_person, successor (027). */
  change: string;
  /** A search's person id; '' for a job change. */
  change_key: string;
  custom_fields: string;
  /** JSON; null for a baseline or a new person. */
  before: string | null;
  after: string;
  detected_at: string;
  job_id: string;
}

/** What a watch's play started for one change (027): a successor search, a CRM task. */
export interface WatchPlaysTable {
  id: Generated<number | string>;
  watch: string;
  change_id: number | string;
  /** successor, task. */
  play: string;
  /** pending, claimed, running, done, failed. */
  state: string;
  /** The cycle whose budget paid for the search. */
  cycle: number | null;
  job_id: string | null;
  task_id: string | null;
  destination: string | null;
  attempts: number;
  next_attempt_at: string;
  detail: string | null;
  usd_micros: number | string;
  created_at: string;
  updated_at: string;
}

/** The watches' group of tables. */
export interface WatchTables {
  watch_cycles: WatchCyclesTable;
  watch_rows: WatchRowsTable;
  watch_changes: WatchChangesTable;
  watch_plays: WatchPlaysTable;
}
