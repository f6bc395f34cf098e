/**
 * The few column types that differ between SQLite and Postgres, chosen in one place so that both
 * dialects get the same schema (same tables, columns, keys and indexes).
 */
import type { ColumnDataType } from 'kysely';

/** The two databases hooksync runs on. */
export type StorageDialect = 'sqlite' | 'postgres';

/** Column types of a migration, per dialect. */
export interface ColumnTypes {
  /** Raw bytes (quarantined bodies, which may not be valid UTF-8). */
  readonly bytes: ColumnDataType;
  /** A 32-bit integer: SQLite's INTEGER is 64-bit, but values are kept in Postgres's int4 range. */
  readonly integer: ColumnDataType;
  /** Text of any length: ids, ISO timestamps, JSON documents. */
  readonly text: ColumnDataType;
  /**
   * An ever-increasing row id, for a primary key: SQLite's INTEGER PRIMARY KEY (the rowid itself),
   * Postgres's bigserial (read back as a string of digits).
   */
  readonly serial: ColumnDataType;
}

const SQLITE_TYPES: ColumnTypes = Object.freeze({
  bytes: 'blob',
  integer: 'integer',
  text: 'text',
  serial: 'integer',
});
const POSTGRES_TYPES: ColumnTypes = Object.freeze({
  bytes: 'bytea',
  integer: 'integer',
  text: 'text',
  serial: 'bigserial',
});

/** The column types to use on `dialect`. */
export function columnTypesFor(dialect: StorageDialect): ColumnTypes {
  return dialect === 'postgres' ? POSTGRES_TYPES : SQLITE_TYPES;
}
