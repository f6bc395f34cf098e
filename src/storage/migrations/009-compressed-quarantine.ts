/**
 * Migration 009: quarantined bodies stored compressed like envelopes. quarantine.body (raw bytes) becomes
 * quarantine.body_z (the same bytes through envelope-codec.ts's byte codec; empty for a body the byte
 * budget dropped) and quarantine.body_bytes (the received size, which the status page and `quarantine
 * list` show). Every stored body is converted here, in batches, in one transaction.
 */
import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';
import { encodeBytes } from '../envelope-codec.js';

/** Bodies converted per statement round (each read whole into memory; one may be 32 MiB). */
const BATCH = 20;

async function compressBodies(db: Kysely<unknown>): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<{ id: string; body: Uint8Array }>`
      SELECT id, body FROM quarantine WHERE id > ${after} ORDER BY id LIMIT ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    for (const row of rows) {
      // A body already dropped by the budget stays empty: nothing to decode later.
      const stored = row.body.length === 0 ? Buffer.alloc(0) : encodeBytes(row.body);
      await sql`UPDATE quarantine SET body_z = ${stored}, body_bytes = ${row.body.length}
        WHERE id = ${row.id}`.execute(db);
    }
    after = rows[rows.length - 1]!.id;
  }
}

async function upgrade(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const postgres = t.bytes === 'bytea';
  // NOT NULL needs a default on an existing table; every row gets its values below.
  const empty = postgres ? sql`''::bytea` : sql`x''`;
  await db.schema
    .alterTable('quarantine')
    .addColumn('body_z', t.bytes, (c) => c.notNull().defaultTo(empty))
    .execute();
  await db.schema
    .alterTable('quarantine')
    .addColumn('body_bytes', t.integer, (c) => c.notNull().defaultTo(0))
    .execute();
  await compressBodies(db);
  await db.schema.alterTable('quarantine').dropColumn('body').execute();
  if (postgres) await sql`ALTER TABLE quarantine ALTER COLUMN body_z SET STORAGE EXTERNAL`.execute(db);
}

/** Converts the stored quarantine bodies, in one transaction. */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  // As in 008: Kysely wraps Postgres migrations in a transaction, not SQLite ones.
  if (db.isTransaction) await upgrade(db, t);
  else await db.transaction().execute((trx) => upgrade(trx, t));
}
