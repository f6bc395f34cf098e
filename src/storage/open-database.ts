/**
 * Opens the database a URL names: `postgres://` or `postgresql://` → a pg Pool behind Kysely's
 * PostgresDialect; anything else → a SQLite file via better-sqlite3, tuned so that a committed
 * transaction is durable before the receiver acknowledges it.
 */
import { closeSync, existsSync, fchmodSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { type Logger, pino } from 'pino';
import { StorageError } from '../errors.js';
import { classifyStorageError } from './classify-storage-error.js';
import type { StorageDialect } from './column-types.js';
import type { Database as Schema } from './database.js';
import { databaseSchemaOf } from './database-schema-of.js';
import { registerSqliteHandle } from './envelope-reader.js';
import { ImmediateSqliteDialect } from './immediate-sqlite-dialect.js';
import { CachedSqliteDatabase } from './job-store/cached-sqlite-database.js';
import { CHUNKED_ROW_RUNNER, createSqliteRowRunner, type RowRunner } from './job-store/row-runner.js';
import { redactDatabaseUrl } from './redact-database-url.js';

/** How long a SQLite writer waits for another process's lock before SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
/** Connections in the Postgres pool. */
export const DEFAULT_POOL_SIZE = 10;
/** How long to wait for a Postgres connection (new or from a busy pool) before failing transient. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/**
 * Mode of a SQLite database file hooksync creates: it holds personal data, so only its owner reads it.
 * SQLite gives the `-wal` and `-shm` files it creates the database file's mode.
 */
export const SQLITE_FILE_MODE = 0o600;
/** FULL: a commit survives power loss, which is what an acknowledged callback promises. */
export const DEFAULT_SQLITE_SYNCHRONOUS = 'FULL';

/** Knobs of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** Postgres pool size (default {@link DEFAULT_POOL_SIZE}). */
  poolSize?: number;
  /** Postgres: wait at most this long for a connection (default {@link DEFAULT_CONNECT_TIMEOUT_MS}). */
  connectTimeoutMs?: number;
  /** SQLite busy_timeout in ms (default {@link DEFAULT_BUSY_TIMEOUT_MS}). */
  busyTimeoutMs?: number;
  /** SQLite synchronous pragma (default FULL; NORMAL in WAL mode may lose the last commits on power loss). */
  synchronous?: 'FULL' | 'NORMAL';
  /** Where pool errors are reported (default: silent). */
  logger?: Logger;
}

/** An open database: the Kysely instance, which dialect it speaks, and how to close it. */
export interface HooksyncDatabase {
  readonly db: Kysely<Schema>;
  readonly dialect: StorageDialect;
  /** How statements over many rows run inside this database's transactions (see row-runner.ts). */
  readonly rowRunner: RowRunner;
  /**
   * Postgres: the schema the URL puts first on the search_path (HOOKSYNC_DATABASE_SCHEMA), created when
   * the database is opened; undefined for the server's default (public) and on SQLite.
   */
  readonly schema?: string | undefined;
  /** Closes the pool or the file; safe to call more than once. */
  close(): Promise<void>;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** True when `url` names a Postgres server rather than a SQLite file. */
export function isPostgresUrl(url: string): boolean {
  return POSTGRES_URL.test(url);
}

/** Opens (and for Postgres, connects to) the database named by `url`. Throws StorageError when it cannot. */
export async function openDatabase(
  url: string,
  options: OpenDatabaseOptions = {},
): Promise<HooksyncDatabase> {
  if (typeof url !== 'string' || url.trim() === '')
    throw new TypeError('openDatabase needs a URL or a file path');
  const logger = options.logger ?? pino({ level: 'silent' });
  return isPostgresUrl(url) ? openPostgres(url, options, logger) : openSqlite(url, options);
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= fn();
    return closing;
  };
}

async function openPostgres(
  url: string,
  options: OpenDatabaseOptions,
  logger: Logger,
): Promise<HooksyncDatabase> {
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new TypeError('poolSize must be a positive integer');
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  if (!Number.isInteger(connectTimeoutMs) || connectTimeoutMs < 1) {
    throw new TypeError('connectTimeoutMs must be a positive integer');
  }
  // Loaded only here: a SQLite deployment never holds pg's ~4 MB of code and buffers, in either thread
  // (issue 29, the idle floor; bench/RESULTS.md).
  const [{ default: pg }, { default: Cursor }] = await Promise.all([import('pg'), import('pg-cursor')]);
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  // An idle client losing its server emits 'error' on the pool; unhandled, it would crash the process.
  pool.on('error', (error) =>
    logger.warn({ err: error, url: redactDatabaseUrl(url) }, 'postgres pool error'),
  );
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) });
  const schema = databaseSchemaOf(url);
  try {
    await sql`select 1`.execute(db);
    if (schema !== undefined) await createSchemaIfMissing(db, schema);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    const storageError = classifyStorageError(error);
    throw new StorageError(`cannot connect to ${redactDatabaseUrl(url)}: ${storageError.message}`, {
      cause: error,
      transient: storageError.transient,
    });
  }
  return { db, dialect: 'postgres', rowRunner: CHUNKED_ROW_RUNNER, schema, close: once(() => db.destroy()) };
}

/**
 * Creates `schema` unless it exists: looked up first, so that a role without CREATE on the database can
 * use a schema made for it. `schema` is a checked name (config/database-schema.ts checks it): safe to inline.
 */
async function createSchemaIfMissing(db: Kysely<Schema>, schema: string): Promise<void> {
  const { rows } = await sql<{ found: number }>`
    select 1 as found from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
  if (rows.length > 0) return;
  // Two replicas starting together may both try: IF NOT EXISTS, and a lost race is looked up again.
  try {
    await sql.raw(`create schema if not exists ${schema}`).execute(db);
  } catch (error) {
    const again = await sql<{ found: number }>`
      select 1 as found from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
    if (again.rows.length === 0) throw error;
  }
}

async function openSqlite(path: string, options: OpenDatabaseOptions): Promise<HooksyncDatabase> {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError('busyTimeoutMs must be a non-negative integer');
  }
  const synchronous = options.synchronous ?? DEFAULT_SQLITE_SYNCHRONOUS;
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL')
    throw new TypeError('synchronous must be FULL or NORMAL');
  if (path !== ':memory:') assertSqlitePathUsable(path);
  let raw: Database.Database | undefined;
  try {
    if (path !== ':memory:') createPrivateFile(path);
    raw = new Database(path, { timeout: busyTimeoutMs });
    raw.pragma('journal_mode = WAL');
    raw.pragma(`busy_timeout = ${busyTimeoutMs}`);
    raw.pragma(`synchronous = ${synchronous}`);
    raw.pragma('foreign_keys = ON');
  } catch (error) {
    raw?.close();
    const storageError = classifyStorageError(error);
    throw new StorageError(`cannot open SQLite database ${path}: ${storageError.message}`, {
      cause: error,
      transient: storageError.transient,
    });
  }
  // One statement cache per connection: Kysely's driver and the row runner both prepare through it.
  const statements = new CachedSqliteDatabase(raw);
  const db = new Kysely<Schema>({ dialect: new ImmediateSqliteDialect({ database: statements }) });
  registerSqliteHandle(db, raw);
  return {
    db,
    dialect: 'sqlite',
    rowRunner: createSqliteRowRunner(statements),
    close: once(() => db.destroy()),
  };
}

/** Throws StorageError (permanent) when `path` cannot be a SQLite file: its folder is missing, or it is a folder. */
function assertSqlitePathUsable(path: string): void {
  const directory = dirname(resolve(path));
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new StorageError(`cannot open SQLite database ${path}: directory ${directory} does not exist`, {
      transient: false,
    });
  }
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw new StorageError(
      `cannot open SQLite database ${path}: it is a directory; name a file inside it (e.g. ${resolve(path, 'hooksync.db')})`,
      { transient: false },
    );
  }
}

/**
 * Makes sure the SQLite file `path` exists (created empty and private, as {@link openDatabase} would), so
 * that it has an identity (device and inode) before it is opened; throws StorageError as openDatabase does.
 */
export function ensureSqliteFile(path: string): void {
  assertSqlitePathUsable(path);
  try {
    createPrivateFile(path);
  } catch (error) {
    throw new StorageError(`cannot open SQLite database ${path}: ${(error as Error).message}`, {
      cause: error,
      transient: false,
    });
  }
}

/**
 * Creates `path` empty with {@link SQLITE_FILE_MODE} (whatever the umask) unless it exists; SQLite then
 * opens the empty file as a new database. An existing file keeps its mode: the operator may have chosen it.
 */
function createPrivateFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', SQLITE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fchmodSync(fd, SQLITE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/** Whether the database answers a trivial read (of `leases`, a table every migrated database has): `/readyz`. */
export async function isDatabaseUp(db: Kysely<Schema>): Promise<boolean> {
  try {
    await db.selectFrom('leases').select('name').limit(1).execute();
    return true;
  } catch {
    return false;
  }
}
