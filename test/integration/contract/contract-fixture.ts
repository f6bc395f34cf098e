/**
 * Test support for the data contract: the checked-in column lists, the views' columns as a database shows
 * them, and a few rows written straight into the tables the views read (the views are what is tested).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../src/storage/database.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';

/** View name → its columns as "name type". */
export type ViewColumns = Record<string, string[]>;

/** test/fixtures/data-contract/columns.json: every version's views, and the latest version. */
export function contractFixture(): { versions: Record<string, ViewColumns>; latest: string } {
  const file = new URL('../../fixtures/data-contract/columns.json', import.meta.url);
  const { versions } = JSON.parse(readFileSync(file, 'utf8')) as { versions: Record<string, ViewColumns> };
  return { versions, latest: Object.keys(versions).at(-1) ?? '' };
}

/** Whether a command is on the PATH. */
export function installed(command: string): boolean {
  try {
    execFileSync('which', [command], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The hooksync_ views of the database and their columns: "name type" on Postgres, "name" on SQLite. */
export async function viewColumns(database: HooksyncDatabase): Promise<ViewColumns> {
  const out: ViewColumns = {};
  if (database.dialect === 'postgres') {
    const { rows } = await sql<{ view: string; name: string; type: string }>`
      select c.table_name as view, c.column_name as name, c.data_type as type
      from information_schema.columns c join information_schema.views v
        on v.table_schema = c.table_schema and v.table_name = c.table_name
      where c.table_schema = current_schema() and c.table_name like 'hooksync\\_%'
      order by c.table_name, c.ordinal_position`.execute(database.db);
    for (const row of rows) {
      const type = row.type === 'timestamp with time zone' ? 'timestamp' : row.type;
      const columns = out[row.view] ?? [];
      columns.push(`${row.name} ${type}`);
      out[row.view] = columns;
    }
    return out;
  }
  const { rows: views } = await sql<{ name: string }>`
    select name from sqlite_master where type = 'view' and name like 'hooksync\\_%' escape '\\'`.execute(
    database.db,
  );
  for (const { name } of views) {
    const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(
      database.db,
    );
    out[name] = rows.map((r) => r.name);
  }
  return out;
}

const ADA = 'https://www.linkedin.com/in/ada';

/**
 * Ada at Acme (twice), an unknown answer, at Beta as CTO (twice), then left; Bob moved (known by e-mail
 * only); Dee still where she was; Cy only ever unknown. Three outbox events: delivered to a CRM (with the
 * record id it recorded for the company's domain), failed with a long reason, and pending for a paused
 * webhook (a watch change).
 */
export async function seedContractRows(db: Kysely<Database>): Promise<void> {
  const at = (month: number, day = 1) =>
    `2026-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  const change = (
    job_id: string,
    received_at: string,
    status: string,
    contact: Partial<Database['job_changes']>,
    moved?: { domain: string; title: string },
  ) => ({
    job_id,
    received_at,
    job_change_status: status,
    contact_linkedin: null,
    contact_full_name: null,
    company_domain: 'acme.example',
    company_linkedin: null,
    professional_email: null,
    personal_email: null,
    person_id: null,
    first_name: null,
    last_name: null,
    linkedin_url: null,
    new_title: moved?.title ?? null,
    new_company_name: moved === undefined ? null : 'Beta',
    new_company_domain: moved?.domain ?? null,
    new_company_linkedin_id: null,
    previous_title: null,
    previous_company_name: null,
    previous_company_domain: null,
    custom_fields: '{"crm_id":"c-1"}',
    ...contact,
  });
  const ada = { contact_linkedin: ADA };
  await db
    .insertInto('job_changes')
    .values([
      change('j1', at(1), 'no_change', ada),
      change('j2', at(2), 'no_change', { contact_linkedin: `  ${ADA.toUpperCase()} ` }),
      change('j3', at(2, 15), 'unknown', ada),
      change('j4', at(3), 'moved', ada, { domain: 'beta.example', title: 'CTO' }),
      change('j5', at(4), 'moved', ada, { domain: 'beta.example', title: 'cto' }),
      change('j6', at(5), 'left', ada),
      change(
        'b1',
        at(2),
        'moved',
        { professional_email: 'Bob@Old.example' },
        { domain: 'new.example', title: 'VP' },
      ),
      change('d1', at(2), 'no_change', { contact_linkedin: 'https://www.linkedin.com/in/dee' }),
      change('c1', at(2), 'unknown', { contact_linkedin: 'https://www.linkedin.com/in/cy' }),
    ])
    .execute();
  const job = (job_id: string, kind: 'company_reveal' | 'job_change') => ({
    job_id,
    kind,
    status: 'SUCCEEDED',
    context_id: null,
    start_date: null,
    stop_date: null,
    envelope_z: Buffer.alloc(0),
    payload_hash: 'x',
    source: 'webhook' as const,
    schema_valid: 1,
    schema_issues: null,
    received_at: at(3),
    updated_at: at(3),
  });
  await db
    .insertInto('jobs')
    .values([job('r1', 'company_reveal'), job('j4', 'job_change')])
    .execute();
  await db
    .insertInto('companies')
    .values({
      job_id: 'r1',
      company_id: null,
      domain: 'Acme.example',
      name: 'Acme',
      custom_fields: '{}',
      received_at: at(3),
    })
    .execute();
  await db
    .insertInto('watch_rows')
    .values({
      watch: 'champions',
      row_key: 'rk-ada',
      custom_fields: '{}',
      state: null,
      checked_cycle: 6,
      checked_at: at(5),
      job_id: 'j6',
      first_seen_at: at(1),
      pending_job_id: null,
    })
    .execute();
  const { id: changeId } = await db
    .insertInto('watch_changes')
    .values({
      watch: 'champions',
      row_key: 'rk-ada',
      cycle: 4,
      change: 'moved',
      change_key: '',
      custom_fields: '{}',
      before: '{}',
      after: '{}',
      detected_at: at(3),
      job_id: 'j4',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const destination = (name: string, type: string, paused_at: string | null) => ({
    name,
    type,
    active: 1,
    paused_at,
    pause_reason: paused_at === null ? null : '410 gone',
    last_error: null,
    last_error_at: null,
    updated_at: at(3),
  });
  await db
    .insertInto('destinations')
    .values([destination('crm', 'hubspot', null), destination('hook', 'webhook', at(3))])
    .execute();
  await db
    .insertInto('crm_record_ids')
    .values({
      destination: 'crm',
      object: 'companies',
      key: 'acme.example',
      record_id: '9001',
      recorded_at: at(3),
    })
    .execute();
  const event = (destination: string, job_id: string, status: 'pending' | 'delivered' | 'failed') => ({
    destination,
    job_id,
    revision: 1,
    status,
    attempts: status === 'pending' ? 0 : 3,
    next_attempt_at: at(3),
    claimed_by: null,
    claimed_until: null,
    last_status: status === 'failed' ? 422 : null,
    last_error: status === 'failed' ? `422 unprocessable: no such list ${'x'.repeat(600)}` : null,
    created_at: at(3),
    updated_at: at(3),
    delivered_at: status === 'delivered' ? at(3, 2) : null,
    change_id: null,
  });
  await db
    .insertInto('outbox_events')
    .values([
      event('crm', 'r1', 'delivered'),
      event('crm', 'j4', 'failed'),
      { ...event('hook', 'j4', 'pending'), revision: 0, change_id: changeId },
    ])
    .execute();
}
