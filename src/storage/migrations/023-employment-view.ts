/**
 * Migration 023: hooksync_employment, where each tracked person worked as dated rows (SCD type 2), computed
 * from every stored Job Change result (a watch's checks are stored jobs too) rather than kept on write: it
 * cannot drift from the rows it is derived from, needs no backfill, and costs the receiver nothing.
 *
 * A person is the contact a check asked about: its LinkedIn URL, else its e-mail (lower-cased, trimmed).
 * Each answer that says something (moved, left, no_change; `unknown` says nothing and closes nothing) is an
 * observation of (company_domain, company_name, title); consecutive observations that agree are one period.
 * A period is valid from the first answer that showed it until the first answer of the next period, so a
 * move closes the current row at the moment the next begins and exactly one row per person is current.
 */
import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';
import { asTimestamp } from './022-contract-views.js';

function employmentView(t: ColumnTypes): string {
  const ts = (expr: string) => asTimestamp(t, expr);
  const key = (column: string) => `NULLIF(lower(trim(jc.${column})), '')`;
  const period = 'PARTITION BY person_key ORDER BY received_at, job_id';
  return `WITH observed AS (
      SELECT COALESCE(${key('contact_linkedin')}, ${key('professional_email')}, ${key('personal_email')},
          'job:' || jc.job_id) AS person_key,
        jc.job_id, jc.received_at, jc.job_change_status AS status, jc.contact_linkedin,
        jc.professional_email, jc.personal_email, jc.linkedin_url, jc.custom_fields,
        CASE jc.job_change_status WHEN 'moved' THEN jc.new_company_domain
          WHEN 'no_change' THEN jc.company_domain END AS company_domain,
        CASE WHEN jc.job_change_status = 'moved' THEN jc.new_company_name END AS company_name,
        CASE WHEN jc.job_change_status = 'moved' THEN jc.new_title END AS title,
        COALESCE((SELECT w.watch FROM watch_rows w WHERE w.job_id = jc.job_id LIMIT 1),
          (SELECT c.watch FROM watch_changes c WHERE c.job_id = jc.job_id LIMIT 1)) AS watch,
        COALESCE((SELECT w.row_key FROM watch_rows w WHERE w.job_id = jc.job_id LIMIT 1),
          (SELECT c.row_key FROM watch_changes c WHERE c.job_id = jc.job_id LIMIT 1)) AS row_key
      FROM job_changes jc
      WHERE jc.job_change_status IN ('moved', 'left', 'no_change')
    ), keyed AS (
      SELECT o.*, CASE WHEN o.status = 'left' THEN 'left' ELSE 'at' END || '|'
          || lower(COALESCE(o.company_domain, '')) || '|' || lower(COALESCE(o.company_name, '')) || '|'
          || lower(COALESCE(o.title, '')) AS period_key
      FROM observed o
    ), marked AS (
      SELECT k.*, CASE WHEN LAG(k.period_key) OVER (${period}) = k.period_key THEN 0 ELSE 1 END AS opens
      FROM keyed k
    ), numbered AS (
      SELECT m.*, SUM(m.opens) OVER (${period} ROWS UNBOUNDED PRECEDING) AS period_no
      FROM marked m
    ), seen AS (
      SELECT person_key, period_no, MAX(received_at) AS last_observed_at, COUNT(*) AS observations
      FROM numbered GROUP BY person_key, period_no
    ), person AS (
      SELECT person_key, MAX(watch) AS watch, MAX(row_key) AS row_key FROM observed GROUP BY person_key
    ), opened AS (
      SELECT n.*, LEAD(n.received_at) OVER (PARTITION BY n.person_key ORDER BY n.period_no) AS closed_at
      FROM numbered n WHERE n.opens = 1
    )
    SELECT o.person_key, pe.watch, pe.row_key, o.contact_linkedin, o.professional_email,
      o.personal_email, o.linkedin_url, o.custom_fields, o.company_domain, o.company_name, o.title,
      o.status, ${ts('o.received_at')} AS valid_from, ${ts('o.closed_at')} AS valid_to,
      (o.closed_at IS NULL) AS is_current, o.job_id, ${ts('s.last_observed_at')} AS last_observed_at,
      s.observations
    FROM opened o
    JOIN seen s ON s.person_key = o.person_key AND s.period_no = o.period_no
    JOIN person pe ON pe.person_key = o.person_key`;
}

/** Indexes that find a job's watch row and changes (the view's watch and row_key). */
const INDEXES = { watch_rows_job: 'watch_rows', watch_changes_job: 'watch_changes' } as const;

export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  for (const [name, table] of Object.entries(INDEXES)) {
    await db.schema.createIndex(name).ifNotExists().on(table).column('job_id').execute();
  }
  await sql.raw(`CREATE VIEW hooksync_employment AS ${employmentView(types)}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP VIEW IF EXISTS hooksync_employment').execute(db);
  for (const name of Object.keys(INDEXES)) await db.schema.dropIndex(name).ifExists().execute();
}
