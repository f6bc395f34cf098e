/**
 * Migration 011: the replay guard (deliveries) made compact. A row was the jti and job_id as text and two
 * ISO 8601 timestamps, behind a rowid, an automatic index on jti and an index on expires_at: about an
 * eighth of the disk a company reveal takes until its token expires. It becomes a WITHOUT ROWID table
 * keyed by 16 bytes of the jti's SHA-256 (job-store/jti-key.ts), with exp and the receipt time as epoch
 * seconds; nothing reads the job_id back. Every row is carried over, in batches, in one transaction.
 */
import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';
import { epochSeconds, jtiKey } from '../job-store/jti-key.js';

/** Rows converted per statement round (three parameters each). */
const BATCH = 1000;

async function carryOver(db: Kysely<unknown>): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<{ jti: string; expires_at: string; received_at: string }>`
      SELECT jti, expires_at, received_at FROM deliveries_before_011
      WHERE jti > ${after} ORDER BY jti LIMIT ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    const values = rows.map(
      (row) =>
        sql`(${jtiKey(row.jti)}, ${epochSeconds(Date.parse(row.expires_at), 'up')}, ${epochSeconds(
          Date.parse(row.received_at),
          'down',
        )})`,
    );
    // Two jtis cannot share a key short of a SHA-256 collision; DO NOTHING keeps the migration total.
    await sql`INSERT INTO deliveries (jti_key, expires_at_s, received_at_s) VALUES ${sql.join(values)}
      ON CONFLICT DO NOTHING`.execute(db);
    after = rows[rows.length - 1]!.jti;
  }
}

async function upgrade(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const postgres = t.bytes === 'bytea';
  await db.schema.dropIndex('deliveries_expires_at_idx').ifExists().execute();
  await db.schema.alterTable('deliveries').renameTo('deliveries_before_011').execute();
  const create = db.schema
    .createTable('deliveries')
    .addColumn('jti_key', t.bytes, (c) => c.primaryKey().notNull())
    .addColumn('expires_at_s', 'bigint', (c) => c.notNull())
    .addColumn('received_at_s', 'bigint', (c) => c.notNull());
  // SQLite: the key is the table itself (no rowid, no second copy of the key in an automatic index).
  await (postgres ? create : create.modifyEnd(sql`WITHOUT ROWID`)).execute();
  await carryOver(db);
  await db.schema.dropTable('deliveries_before_011').execute();
  await db.schema.createIndex('deliveries_expires_at_idx').on('deliveries').column('expires_at_s').execute();
}

/** Rebuilds deliveries compact, in one transaction. */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  // As in 008: Kysely wraps Postgres migrations in a transaction, not SQLite ones.
  if (db.isTransaction) await upgrade(db, t);
  else await db.transaction().execute((trx) => upgrade(trx, t));
}
