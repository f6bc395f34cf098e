/**
 * Migration 024: hooksync_deliveries, what each destination did with each event of the outbox: one row per
 * event (a job revision or a watch change, for one destination) with its status, attempts and last answer.
 * `paused` is a pending event of a paused destination. The CRM record id is the one the destination recorded
 * for the event's key where the event has one key (a company reveal's domain, a job change's e-mail).
 */
import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';
import { asTimestamp } from './022-contract-views.js';

/** How much of an answer's reason the view shows. */
const REASON_CHARS = 500;

function deliveriesView(t: ColumnTypes): string {
  const ts = (expr: string) => asTimestamp(t, expr);
  const recordId = (object: string, key: string) =>
    `(SELECT r.record_id FROM crm_record_ids r WHERE r.destination = e.destination
        AND r.object = '${object}' AND r.key = ${key})`;
  return `SELECT e.id AS event_id, e.destination, d.type AS destination_type,
      CASE WHEN e.change_id IS NULL THEN j.kind ELSE 'watch_change' END AS event_kind,
      wc.change AS change_kind, e.job_id, e.change_id, e.revision,
      CASE WHEN e.status = 'pending' AND d.paused_at IS NOT NULL THEN 'paused' ELSE e.status END AS status,
      e.attempts, e.last_status AS last_answer_status, substr(e.last_error, 1, ${REASON_CHARS}) AS last_reason,
      COALESCE(${recordId('companies', 'lower(trim(c.domain))')},
        ${recordId('contacts', 'lower(trim(jc.professional_email))')}) AS crm_record_id,
      ${ts('e.created_at')} AS created_at, ${ts('e.updated_at')} AS updated_at,
      ${ts('e.next_attempt_at')} AS next_attempt_at, ${ts('e.delivered_at')} AS delivered_at
    FROM outbox_events e
    LEFT JOIN destinations d ON d.name = e.destination
    LEFT JOIN jobs j ON j.job_id = e.job_id
    LEFT JOIN watch_changes wc ON wc.id = e.change_id
    LEFT JOIN companies c ON c.job_id = e.job_id
    LEFT JOIN job_changes jc ON jc.job_id = e.job_id`;
}

export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  await sql.raw(`CREATE VIEW hooksync_deliveries AS ${deliveriesView(types)}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('DROP VIEW IF EXISTS hooksync_deliveries').execute(db);
}
