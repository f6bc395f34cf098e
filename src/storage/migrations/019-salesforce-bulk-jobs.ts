/**
 * Migration 019: salesforce_bulk_jobs, the Bulk API 2.0 ingest jobs a salesforce destination has uploaded and
 * closed but not yet read the results of, keyed (destination, fingerprint): the same upload (object, key
 * field and CSV, hashed) attempted again, after a timeout or a restart, resumes polling that job instead of
 * uploading its rows again. A row is deleted once the job's results are read (or the job is gone).
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('salesforce_bulk_jobs')
    .ifNotExists()
    .addColumn('destination', t.text, (c) => c.notNull())
    // sha256 of the object, the key field and the CSV uploaded.
    .addColumn('fingerprint', t.text, (c) => c.notNull())
    .addColumn('object', t.text, (c) => c.notNull())
    .addColumn('job_id', t.text, (c) => c.notNull())
    .addColumn('records', t.integer, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('salesforce_bulk_jobs_pk', ['destination', 'fingerprint'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('salesforce_bulk_jobs').ifExists().execute();
}
