/**
 * What the alerts suites share: the destinations world (a migrated SQLite file or Postgres database, a
 * dispatcher over destinations parsed as the file would be) and watch changes written as a watch writes
 * them: the change, its job's normalized row (the person's name), and its outbox events, in one
 * transaction.
 */
import { randomUUID } from 'node:crypto';
import { recordChangeEvents } from '../../../src/storage/job-store/record-outbox-events.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import type { SlackStandIn } from '../../helpers/slack/stand-in.js';

/** What a change is written into. */
export interface ChangeWorld {
  readonly database: HooksyncDatabase;
}

/** A change as a test writes it. */
export interface TestChange {
  readonly watch?: string;
  readonly change?: 'moved' | 'left' | 'returned' | 'title' | 'new_person';
  readonly first?: string;
  readonly last?: string;
  readonly fields?: Record<string, string>;
  readonly from?: string;
  readonly to?: string;
  readonly title?: string;
}

/** Writes a change (and its events for the destinations that take watch_change); returns its id. */
export async function addChange(world: ChangeWorld, change: TestChange = {}): Promise<string> {
  const jobId = randomUUID();
  const nowIso = new Date().toISOString();
  const kind = change.change ?? 'moved';
  return world.database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('job_changes')
      .values({
        job_id: jobId,
        job_change_status: kind === 'left' ? 'left' : 'moved',
        contact_linkedin: null,
        contact_full_name: `${change.first ?? 'Jane'} ${change.last ?? 'Doe'}`,
        company_domain: 'acme.com',
        company_linkedin: null,
        professional_email: null,
        personal_email: null,
        person_id: null,
        first_name: change.first ?? 'Jane',
        last_name: change.last ?? 'Doe',
        linkedin_url: 'https://www.linkedin.com/in/jane-doe',
        new_title: change.title ?? 'CRO',
        new_company_name: change.to ?? 'Globex',
        new_company_domain: 'globex.com',
        new_company_linkedin_id: null,
        previous_title: null,
        previous_company_name: change.from ?? 'Acme',
        previous_company_domain: 'acme.com',
        custom_fields: JSON.stringify(change.fields ?? {}),
        received_at: nowIso,
      })
      .execute();
    const inserted = await trx
      .insertInto('watch_changes')
      .values({
        watch: change.watch ?? 'champions',
        row_key: randomUUID(),
        cycle: 1,
        change: kind,
        change_key: '',
        custom_fields: JSON.stringify(change.fields ?? {}),
        before: JSON.stringify({
          status: 'no_change',
          company_domain: 'acme.com',
          company_name: change.from ?? 'Acme',
          title: null,
        }),
        after: JSON.stringify({
          status: kind === 'left' ? 'left' : 'moved',
          company_domain: kind === 'left' ? null : 'globex.com',
          company_name: kind === 'left' ? null : (change.to ?? 'Globex'),
          title: kind === 'left' ? null : (change.title ?? 'CRO'),
        }),
        detected_at: nowIso,
        job_id: jobId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordChangeEvents(trx, [inserted.id], nowIso);
    return String(inserted.id);
  });
}

/** The outbox events of `destination` by status. */
export async function eventStates(world: ChangeWorld, destination: string) {
  return world.database.db
    .selectFrom('outbox_events')
    .select(['id', 'status', 'attempts', 'last_error', 'change_id'])
    .where('destination', '=', destination)
    .orderBy('id')
    .execute();
}

/** A `slack` destination "sales" on the stand-in's Web API (token in SLACK_BOT_TOKEN), unpaced, quick retries. */
export function slackSales(
  slack: SlackStandIn,
  routes: unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: 'sales',
    type: 'slack',
    token: { env: 'SLACK_BOT_TOKEN' },
    api_url: slack.apiUrl,
    channel_interval: '0ms',
    retry: { schedule: ['10ms', '10ms', '10ms'] },
    routes,
    ...extra,
  };
}

/** The texts posted in `channel` (a name, an id, or a user's id for the direct messages), sorted. */
export function textsIn(slack: SlackStandIn, channel: string): Array<string | undefined> {
  return slack
    .in(channel)
    .map((message) => message.text)
    .sort();
}
