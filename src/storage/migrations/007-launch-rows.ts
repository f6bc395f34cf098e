/**
 * Migration 007: bulk launches (`hooksync launch`). `launch_rows` records each row's launch before and after
 * its request, so that a re-run skips what was launched; and custom_fields on persons and companies, so that
 * a record id carried in a search or a reveal comes out in exports as it does for job changes.
 */
import type { Kysely } from 'kysely';
import { parseJsonText } from '../../contract/json.js';
import type { ColumnTypes } from '../column-types.js';
import { asRecord, jsonObjectAt, recordAt } from '../normalize-values.js';

/** Jobs read per backfill round. */
const BACKFILL_BATCH = 500;

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('launch_rows')
    .ifNotExists()
    // A digest of the operation and its request: the same row of the same file gives the same key.
    .addColumn('row_key', t.text, (c) => c.primaryKey())
    .addColumn('operation', t.text, (c) => c.notNull())
    .addColumn('request', t.text, (c) => c.notNull())
    // sending (recorded before the request), launched, failed, uncertain (no answer: may have been taken).
    .addColumn('state', t.text, (c) => c.notNull())
    // What the row was before this run claimed it (a 'sending' one is a relaunch after a crash).
    .addColumn('prior_state', t.text)
    .addColumn('run_id', t.text, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('source', t.text)
    .addColumn('line', t.integer)
    .addColumn('job_id', t.text)
    .addColumn('status', t.text)
    .addColumn('usd', t.text)
    .addColumn('result_count', t.integer)
    .addColumn('error', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('launch_rows_job_id_idx')
    .ifNotExists()
    .on('launch_rows')
    .column('job_id')
    .execute();
  await db.schema.alterTable('persons').addColumn('custom_fields', t.text).execute();
  await db.schema.alterTable('companies').addColumn('custom_fields', t.text).execute();
  await backfillCustomFields(db as Kysely<BackfillTables>);
}

interface BackfillTables {
  jobs: { job_id: string; kind: string; envelope: string };
  persons: { job_id: string; custom_fields: string | null };
  companies: { job_id: string; custom_fields: string | null };
}

/** Rows stored before this migration take their job's input.task.custom_fields, as new rows do. */
async function backfillCustomFields(db: Kysely<BackfillTables>): Promise<void> {
  let after = '';
  for (;;) {
    const jobs = await db
      .selectFrom('jobs')
      .select(['job_id', 'kind', 'envelope'])
      .where('kind', 'in', ['search_contact', 'job_change', 'company_reveal'])
      .where('job_id', '>', after)
      .orderBy('job_id')
      .limit(BACKFILL_BATCH)
      .execute();
    if (jobs.length === 0) return;
    for (const job of jobs) {
      let customFields = '{}';
      try {
        customFields = jsonObjectAt(
          recordAt(recordAt(asRecord(parseJsonText(job.envelope)), 'input'), 'task'),
          'custom_fields',
        );
      } catch {
        // Stored text that does not parse keeps '{}', as the normalizer would give it.
      }
      const table = job.kind === 'company_reveal' ? 'companies' : 'persons';
      await db
        .updateTable(table)
        .set({ custom_fields: customFields })
        .where('job_id', '=', job.job_id)
        .execute();
    }
    after = jobs[jobs.length - 1]!.job_id;
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('launch_rows').ifExists().execute();
  await db.schema.alterTable('persons').dropColumn('custom_fields').execute();
  await db.schema.alterTable('companies').dropColumn('custom_fields').execute();
}
