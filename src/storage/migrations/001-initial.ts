/**
 * Migration 001: every table of database.ts with its primary key and the indexes the receiver, the
 * ledger, the CLI and the exports query by. Same schema on SQLite and Postgres.
 */
import type { CreateTableBuilder, Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

type Table = CreateTableBuilder<string, string>;

/** Adds nullable text columns, in order. */
function nullableText(table: Table, types: ColumnTypes, names: readonly string[]): Table {
  return names.reduce<Table>((t, name) => t.addColumn(name, types.text), table);
}

/** Adds nullable 32-bit integer columns, in order. */
function nullableInteger(table: Table, types: ColumnTypes, names: readonly string[]): Table {
  return names.reduce<Table>((t, name) => t.addColumn(name, types.integer), table);
}

async function createJobs(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('jobs')
    .ifNotExists()
    .addColumn('job_id', t.text, (c) => c.primaryKey())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('context_id', t.text)
    .addColumn('start_date', t.text)
    .addColumn('stop_date', t.text)
    .addColumn('envelope', t.text, (c) => c.notNull())
    .addColumn('payload_hash', t.text, (c) => c.notNull())
    .addColumn('source', t.text, (c) => c.notNull())
    .addColumn('schema_valid', t.integer, (c) => c.notNull())
    .addColumn('schema_issues', t.text)
    .addColumn('received_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    // 1 when first stored, +1 per upgrade (RUNNING -> finished): tells an insert from an upgrade in RETURNING.
    .addColumn('revision', t.integer, (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .createTable('deliveries')
    .ifNotExists()
    .addColumn('jti', t.text, (c) => c.primaryKey())
    .addColumn('job_id', t.text, (c) => c.notNull())
    .addColumn('expires_at', t.text, (c) => c.notNull())
    .addColumn('received_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('quarantine')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('reason', t.text, (c) => c.notNull())
    .addColumn('detail', t.text)
    .addColumn('claimed_job_id', t.text)
    .addColumn('kind', t.text)
    .addColumn('content_type', t.text)
    .addColumn('body', t.bytes, (c) => c.notNull())
    .addColumn('received_at', t.text, (c) => c.notNull())
    .execute();
}

async function createNormalized(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  let persons = db.schema
    .createTable('persons')
    .ifNotExists()
    .addColumn('job_id', t.text, (c) => c.notNull())
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('source_kind', t.text, (c) => c.notNull());
  persons = nullableText(persons, t, [
    'person_id',
    'first_name',
    'last_name',
    'linkedin_id',
    'linkedin_url',
    'about',
    'location',
    'country',
    'company_id',
    'company_linkedin_id',
    'company_name',
    'company_domain',
    'title',
    'seniority',
    'department',
  ]);
  await persons
    .addColumn('experiences', t.text, (c) => c.notNull())
    .addColumn('received_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('persons_pk', ['job_id', 'position'])
    .execute();

  let companies = db.schema
    .createTable('companies')
    .ifNotExists()
    .addColumn('job_id', t.text, (c) => c.primaryKey());
  companies = nullableText(companies, t, [
    'ip',
    'ip_type',
    'confidence_score',
    'ip_geo_city',
    'ip_geo_state',
    'ip_geo_country',
    'company_id',
    'domain',
    'name',
    'website',
    'linkedin_id',
    'description',
    'logo_url',
    'size',
  ]);
  companies = nullableInteger(companies, t, ['employees_count']);
  companies = nullableText(companies, t, ['industry', 'company_type']);
  companies = nullableInteger(companies, t, ['founded']);
  companies = nullableText(companies, t, ['address', 'country', 'linkedin_url']);
  companies = nullableInteger(companies, t, ['linkedin_followers']);
  companies = nullableText(companies, t, ['crunchbase_url']);
  companies = nullableInteger(companies, t, ['recent_job_posting_count', 'total_funding_rounds']);
  // int64 kept as its decimal digits: no integer type holds it on both dialects without rounding risk.
  companies = nullableText(companies, t, ['total_funding_usd']);
  await companies
    .addColumn('technologies', t.text, (c) => c.notNull())
    .addColumn('funding_rounds', t.text, (c) => c.notNull())
    .addColumn('received_at', t.text, (c) => c.notNull())
    .execute();

  let jobChanges = db.schema
    .createTable('job_changes')
    .ifNotExists()
    .addColumn('job_id', t.text, (c) => c.primaryKey());
  jobChanges = nullableText(jobChanges, t, [
    'job_change_status',
    'contact_linkedin',
    'contact_full_name',
    'company_domain',
    'company_linkedin',
    'professional_email',
    'personal_email',
    'person_id',
    'first_name',
    'last_name',
    'linkedin_url',
    'new_title',
    'new_company_name',
    'new_company_domain',
    'new_company_linkedin_id',
    'previous_title',
    'previous_company_name',
    'previous_company_domain',
  ]);
  await jobChanges
    .addColumn('custom_fields', t.text, (c) => c.notNull())
    .addColumn('received_at', t.text, (c) => c.notNull())
    .execute();
}

async function createBookkeeping(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('expected_jobs')
    .ifNotExists()
    .addColumn('job_id', t.text, (c) => c.primaryKey())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('state', t.text, (c) => c.notNull())
    .addColumn('origin', t.text, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', t.text)
    .addColumn('last_error', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('reconcile_runs')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('holder', t.text, (c) => c.notNull())
    .addColumn('started_at', t.text, (c) => c.notNull())
    .addColumn('finished_at', t.text)
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('report', t.text)
    .execute();
  await db.schema
    .createTable('leases')
    .ifNotExists()
    .addColumn('name', t.text, (c) => c.primaryKey())
    .addColumn('holder', t.text, (c) => c.notNull())
    .addColumn('acquired_at', t.text, (c) => c.notNull())
    .addColumn('expires_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('export_cursors')
    .ifNotExists()
    .addColumn('template', t.text, (c) => c.primaryKey())
    .addColumn('cursor', t.text, (c) => c.notNull())
    .addColumn('rows', t.integer, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
}

/** Index name → table and columns. */
const INDEXES: Readonly<Record<string, readonly [string, readonly string[]]>> = {
  jobs_received_at_idx: ['jobs', ['received_at']],
  jobs_kind_idx: ['jobs', ['kind']],
  jobs_status_idx: ['jobs', ['status']],
  deliveries_expires_at_idx: ['deliveries', ['expires_at']],
  quarantine_received_at_idx: ['quarantine', ['received_at']],
  persons_person_id_idx: ['persons', ['person_id']],
  persons_linkedin_url_idx: ['persons', ['linkedin_url']],
  persons_received_at_idx: ['persons', ['received_at']],
  companies_received_at_idx: ['companies', ['received_at']],
  job_changes_received_at_idx: ['job_changes', ['received_at']],
  expected_jobs_state_next_attempt_idx: ['expected_jobs', ['state', 'next_attempt_at']],
};

/** Creates the whole schema (idempotent: every statement is IF NOT EXISTS). */
export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  await createJobs(db, types);
  await createNormalized(db, types);
  await createBookkeeping(db, types);
  for (const [name, [table, columns]] of Object.entries(INDEXES)) {
    await db.schema
      .createIndex(name)
      .ifNotExists()
      .on(table)
      .columns([...columns])
      .execute();
  }
}

/** Drops everything 001 created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'export_cursors',
    'leases',
    'reconcile_runs',
    'expected_jobs',
    'job_changes',
    'companies',
    'persons',
    'quarantine',
    'deliveries',
    'jobs',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
