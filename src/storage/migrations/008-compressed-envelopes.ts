/**
 * Migration 008: each byte stored once, compressed. jobs.envelope (text) becomes jobs.envelope_z (bytes:
 * the envelope compressed by envelope-codec.ts; every stored envelope is converted here, in batches), and
 * the normalized rows lose their second copies of nested values the envelope already holds: persons'
 * experiences and about (kept once per job, compressed, in person_texts), and every companies column but the ones exports filter, sort and deduplicate by (the export
 * reads the rest from the envelope, see export-sources.ts). On Postgres the compressed column is stored
 * out of line without a second compression attempt (STORAGE EXTERNAL). And kept_mentions: which kept
 * envelopes mention a purged person, since SQL can no longer search the envelopes' text.
 */
import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';
import { encodeEnvelope } from '../envelope-codec.js';
import { asBuffer, personTextsRow } from '../person-texts.js';

/** Envelopes converted per statement round (each read whole into memory). */
const BATCH = 100;

/** The companies columns kept: what exports filter, order and deduplicate by; the rest is read from the envelope. */
const COMPANIES_KEPT = ['job_id', 'company_id', 'domain', 'name', 'custom_fields', 'received_at'];

/** Rebuilds companies with the kept columns only (one copy of the table, not one per dropped column). */
async function leanCompanies(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('companies_lean')
    .addColumn('job_id', t.text, (c) => c.primaryKey())
    .addColumn('company_id', t.text)
    .addColumn('domain', t.text)
    .addColumn('name', t.text)
    .addColumn('custom_fields', t.text)
    .addColumn('received_at', t.text, (c) => c.notNull())
    .execute();
  const columns = sql.join(COMPANIES_KEPT.map((column) => sql.ref(column)));
  await sql`INSERT INTO companies_lean (${columns}) SELECT ${columns} FROM companies`.execute(db);
  await db.schema.dropTable('companies').execute();
  await db.schema.alterTable('companies_lean').renameTo('companies').execute();
  await db.schema.createIndex('companies_received_at_idx').on('companies').column('received_at').execute();
}

async function compressEnvelopes(db: Kysely<unknown>): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<{ job_id: string; envelope: string }>`
      SELECT job_id, envelope FROM jobs WHERE job_id > ${after} ORDER BY job_id LIMIT ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    for (const row of rows) {
      await sql`UPDATE jobs SET envelope_z = ${encodeEnvelope(row.envelope)} WHERE job_id = ${row.job_id}`.execute(
        db,
      );
    }
    after = rows[rows.length - 1]!.job_id;
  }
}

/** Moves persons.about into one person_texts row per job, a batch of jobs at a time. */
async function movePersonTexts(db: Kysely<unknown>): Promise<void> {
  let after = '';
  for (;;) {
    const { rows: jobs } = await sql<{ job_id: string }>`
      SELECT DISTINCT job_id FROM persons WHERE about IS NOT NULL AND job_id > ${after}
      ORDER BY job_id LIMIT ${BATCH}`.execute(db);
    if (jobs.length === 0) return;
    const ids = jobs.map((job) => job.job_id);
    const { rows } = await sql<{ job_id: string; position: number; about: string | null }>`
      SELECT job_id, position, about FROM persons WHERE job_id IN (${sql.join(ids)})`.execute(db);
    const abouts = new Map<string, (string | null)[]>();
    for (const row of rows) {
      const list = abouts.get(row.job_id) ?? [];
      list[Number(row.position)] = row.about;
      abouts.set(row.job_id, list);
    }
    for (const [jobId, list] of abouts) {
      for (const row of personTextsRow(
        jobId,
        Array.from(list, (about) => about ?? null),
      )) {
        await sql`INSERT INTO person_texts (job_id, abouts_z) VALUES (${row.job_id}, ${asBuffer(row.abouts_z)})`.execute(
          db,
        );
      }
    }
    after = ids[ids.length - 1]!;
  }
}

async function upgrade(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const postgres = t.bytes === 'bytea';
  // NOT NULL needs a default on an existing table; every row gets its value below.
  const empty = postgres ? sql`''::bytea` : sql`x''`;
  await db.schema
    .alterTable('jobs')
    .addColumn('envelope_z', t.bytes, (c) => c.notNull().defaultTo(empty))
    .execute();
  await compressEnvelopes(db);
  await db.schema.alterTable('jobs').dropColumn('envelope').execute();
  if (postgres) await sql`ALTER TABLE jobs ALTER COLUMN envelope_z SET STORAGE EXTERNAL`.execute(db);
  await db.schema.alterTable('persons').dropColumn('experiences').execute();
  await db.schema
    .createTable('person_texts')
    .addColumn('job_id', t.text, (c) => c.primaryKey())
    .addColumn('abouts_z', t.bytes, (c) => c.notNull())
    .execute();
  await movePersonTexts(db);
  await db.schema.alterTable('persons').dropColumn('about').execute();
  await leanCompanies(db, t);
  // What `purge --person` kept: the envelopes it found through rows it then deleted (see purge-person.ts).
  await db.schema
    .createTable('kept_mentions')
    .addColumn('linkedin_url', t.text, (c) => c.notNull())
    .addColumn('job_id', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('kept_mentions_pk', ['linkedin_url', 'job_id'])
    .execute();
}

/** Converts the stored envelopes and drops the second copies, in one transaction. */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  // Kysely runs Postgres migrations in a transaction already, SQLite ones not (it does not count on
  // transactional DDL there): a crash halfway must not leave half the envelopes converted.
  if (db.isTransaction) await upgrade(db, t);
  else await db.transaction().execute((trx) => upgrade(trx, t));
}
