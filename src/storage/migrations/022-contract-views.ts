/**
 * Migration 022: the data contract's views over the normalized rows (docs/data-contract.md, version 1.0.0):
 * hooksync_persons, hooksync_companies, hooksync_job_changes, hooksync_watch_changes and hooksync_contract.
 * Same column names on both dialects; Postgres gives the times we set the type timestamptz, SQLite keeps
 * their ISO 8601 text. A view is frozen with its migration: a later contract replaces it in a new one.
 */
import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/** The contract version this migration creates (hooksync_contract.version). */
const VERSION = '1.0.0';

/** `expr` as a timestamp where the dialect has one: our times are ISO 8601 UTC text. */
export function asTimestamp(types: ColumnTypes, expr: string): string {
  return types.bytes === 'bytea' ? `CAST(${expr} AS timestamptz)` : expr;
}

function views(t: ColumnTypes): Record<string, string> {
  const ts = (expr: string) => asTimestamp(t, expr);
  return {
    hooksync_persons: `SELECT p.job_id, p.source_kind AS kind, p.position, p.person_id, p.first_name,
        p.last_name, p.linkedin_id, p.linkedin_url, p.location, p.country, p.company_id,
        p.company_linkedin_id, p.company_name, p.company_domain, p.title, p.seniority, p.department,
        p.custom_fields, ${ts('p.received_at')} AS received_at
      FROM persons p`,
    hooksync_companies: `SELECT c.job_id, 'company_reveal' AS kind, c.company_id, c.domain, c.name,
        c.custom_fields, ${ts('c.received_at')} AS received_at
      FROM companies c`,
    hooksync_job_changes: `SELECT jc.job_id, 'job_change' AS kind, jc.job_change_status,
        jc.contact_linkedin, jc.contact_full_name, jc.company_domain, jc.company_linkedin,
        jc.professional_email, jc.personal_email, jc.person_id, jc.first_name, jc.last_name,
        jc.linkedin_url, jc.new_title, jc.new_company_name, jc.new_company_domain,
        jc.new_company_linkedin_id, jc.previous_title, jc.previous_company_name,
        jc.previous_company_domain, jc.custom_fields, ${ts('jc.received_at')} AS received_at
      FROM job_changes jc`,
    hooksync_watch_changes: `SELECT wc.id AS change_id, wc.watch, wc.row_key, wc.cycle,
        wc.change AS change_kind, wc.change_key, wc.before AS state_before, wc.after AS state_after,
        wc.custom_fields, ${ts('wc.detected_at')} AS detected_at, wc.job_id
      FROM watch_changes wc`,
    hooksync_contract: `SELECT '${VERSION}' AS version`,
  };
}

/** Creates the views (replacing none: a fresh name each). */
export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  for (const [name, query] of Object.entries(views(types))) {
    await sql.raw(`CREATE VIEW ${name} AS ${query}`).execute(db);
  }
}

export async function down(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  for (const name of Object.keys(views(types)).reverse()) {
    await sql.raw(`DROP VIEW IF EXISTS ${name}`).execute(db);
  }
}
