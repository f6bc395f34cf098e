/**
 * A watch's change as an alert tells it: the person's name, the companies, the title, the words of the
 * change, the watch, links, and the carried fields (for templates and owners). The name and the companies
 * a job change's state does not hold come from the job's normalized row (`job_changes`); a search's new
 * person carries them in the change itself.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { EventChange } from '../outbox.js';

/** What an alert says about one change. */
export interface AlertChange {
  readonly id: string;
  readonly watch: string;
  /** moved, left, returned, title, new_person (or `test` for `destinations test`). */
  readonly kind: string;
  readonly name: string;
  readonly company: string;
  readonly previousCompany: string;
  readonly title: string;
  readonly linkedin: string | undefined;
  /** The carried fields, as text (`hs_object_id`, `owner_email`, ...). */
  readonly fields: Readonly<Record<string, string>>;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const text = (value: unknown): string =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
const first = (...values: unknown[]): string => values.map(text).find((value) => value !== '') ?? '';

/** The carried fields as text, JSON values (numbers, booleans) written out. */
function carried(customFields: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(record(customFields))) {
    if (value === null || value === undefined) continue;
    fields[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return fields;
}

/** The change of an event, told for people (reads the job's normalized row of a job change). */
export async function loadAlertChange(db: Kysely<Database>, change: EventChange): Promise<AlertChange> {
  const before = record(change.before);
  const after = record(change.after);
  const fields = carried(change.custom_fields);
  if (change.change === 'new_person') {
    return {
      id: change.id,
      watch: change.watch,
      kind: change.change,
      name: first([text(after.first_name), text(after.last_name)].filter(Boolean).join(' '), 'someone'),
      company: first(after.company_name, after.company_domain),
      previousCompany: '',
      title: text(after.title),
      linkedin: text(after.linkedin_url) || undefined,
      fields,
    };
  }
  const row = await db
    .selectFrom('job_changes')
    .select([
      'contact_full_name',
      'first_name',
      'last_name',
      'linkedin_url',
      'contact_linkedin',
      'company_domain',
      'previous_company_name',
      'previous_company_domain',
    ])
    .where('job_id', '=', change.job_id)
    .executeTakeFirst();
  const answered = [text(row?.first_name), text(row?.last_name)].filter(Boolean).join(' ');
  return {
    id: change.id,
    watch: change.watch,
    kind: change.change,
    name: first(answered, row?.contact_full_name, fields.name, 'someone'),
    company: first(after.company_name, after.company_domain, row?.company_domain),
    previousCompany: first(
      before.company_name,
      before.company_domain,
      row?.previous_company_name,
      row?.previous_company_domain,
      row?.company_domain,
    ),
    title: text(after.title),
    linkedin: first(row?.linkedin_url, row?.contact_linkedin) || undefined,
    fields,
  };
}
