/**
 * The demo's reads of the receiver's database: contacts synced by the searches, delivery outcomes,
 * refusals, the ledger and the stored jobs. Plain queries, the same on both dialects.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import { decodeEnvelope } from '../storage/envelope-codec.js';
import type { DemoContact } from './demo-plan.js';
import type { DemoRefusal } from './demo-report.js';

/** Persons stored from `searchJobIds`, in the order the searches were launched and as paged. */
export async function loadSyncedContacts(
  db: Kysely<Database>,
  searchJobIds: readonly string[],
): Promise<DemoContact[]> {
  if (searchJobIds.length === 0) return [];
  const rows = await db
    .selectFrom('persons')
    .select(['job_id', 'position', 'linkedin_url', 'first_name', 'last_name', 'company_domain'])
    .where('job_id', 'in', [...searchJobIds])
    .execute();
  const order = (jobId: string) => searchJobIds.indexOf(jobId);
  rows.sort((a, b) => order(a.job_id) - order(b.job_id) || a.position - b.position);
  return rows.map((row) => {
    const name = [row.first_name, row.last_name].filter((part) => part !== null).join(' ');
    // Job Change requests take a full name of 4 to 250 characters (Limits part).
    const fullName = name.length >= 4 && name.length <= 250 ? name : null;
    return { linkedin_url: row.linkedin_url, full_name: fullName, company_domain: row.company_domain };
  });
}

/** Deliveries per outcome over every hour of delivery_stats. */
export async function loadDeliveryOutcomes(db: Kysely<Database>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('delivery_stats')
    .select(['outcome', (eb) => eb.fn.sum<number | string>('count').as('total')])
    .groupBy('outcome')
    .execute();
  // Postgres answers sum() of integers as a numeric string, SQLite as a number.
  return Object.fromEntries(rows.map((row) => [row.outcome, Number(row.total)]));
}

/** Quarantined callbacks per refusal reason, most frequent first. */
export async function loadRefusals(db: Kysely<Database>): Promise<DemoRefusal[]> {
  const rows = await db
    .selectFrom('quarantine')
    .select(['reason', (eb) => eb.fn.countAll().as('n')])
    .groupBy('reason')
    .execute();
  return rows
    .map((row) => ({ reason: row.reason, count: Number(row.n) }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
}

/** Ledger entries still pending. */
export async function countPendingLedger(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('expected_jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every stored job's status and envelope text, by job_id. */
export async function loadStoredJobs(
  db: Kysely<Database>,
): Promise<Map<string, { status: string; envelope: string }>> {
  const rows = await db.selectFrom('jobs').select(['job_id', 'status', 'envelope_z']).execute();
  return new Map(
    rows.map((row) => [row.job_id, { status: row.status, envelope: decodeEnvelope(row.envelope_z) }]),
  );
}
