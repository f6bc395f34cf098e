/**
 * The rows a job gives a CRM destination: its companies and contacts templates' (the same mapping as the
 * files users import: hubspot-companies and hubspot-contacts, salesforce-accounts and salesforce-contacts,
 * ...), the contacts' with their employer's domain and name and the person's id added for the company key,
 * the link and a watch's change. A watch's change (`watch_change`) is mapped through the same templates,
 * from the job that found it, a batch of changes read at once (changeRows).
 */
import type { Kysely } from 'kysely';
import { exportJobRows, exportRows, templateHeader } from '../../export/export-rows.js';
import { loadTemplate } from '../../export/load-template.js';
import type { ExportTemplate } from '../../export/parse-template.js';
import type { Database } from '../../storage/database.js';
import type { EventChange } from '../outbox.js';
import {
  ASKED_EMAIL_COLUMN,
  COMPANY_DOMAIN_COLUMN,
  COMPANY_NAME_COLUMN,
  type EventRows,
  PERSON_ID_COLUMN,
} from './map-records.js';
import { normalizeDomain, normalizePersonId } from './normalize-keys.js';

/** The two templates, loaded once. */
export interface CrmTemplates {
  readonly companies: ExportTemplate;
  readonly contacts: ExportTemplate;
}

/** The built-in templates a CRM maps with, by name. */
export interface CrmTemplateNames {
  readonly companies: string;
  readonly contacts: string;
}

/**
 * Where the record id is carried when the destination names its own `custom_fields` key (Salesforce's
 * `id_field`): the templates' record id `column` then reads `task.custom_fields.<key>`.
 */
export interface CarriedIdField {
  readonly column: string;
  readonly key: string;
}

function carryingFrom(template: ExportTemplate, carried: CarriedIdField | undefined): ExportTemplate {
  if (carried === undefined) return template;
  const field = `task.custom_fields.${carried.key}`;
  return {
    ...template,
    columns: template.columns.map((column) =>
      column.header === carried.column ? { header: column.header, field, transforms: [] } : column,
    ),
  };
}

/** Loads the built-in templates the destination maps with. */
export async function loadCrmTemplates(
  names: CrmTemplateNames,
  carried?: CarriedIdField,
): Promise<CrmTemplates> {
  const [companies, contacts] = await Promise.all([
    loadTemplate(names.companies).then((template) => carryingFrom(template, carried)),
    loadTemplate(names.contacts).then((template) => carryingFrom(template, carried)),
  ]);
  return {
    companies,
    contacts: {
      ...contacts,
      columns: [
        ...contacts.columns,
        { header: COMPANY_DOMAIN_COLUMN, field: 'company_domain', transforms: [] },
        { header: COMPANY_NAME_COLUMN, field: 'company_name', transforms: [] },
        { header: PERSON_ID_COLUMN, field: 'id', transforms: [] },
        { header: ASKED_EMAIL_COLUMN, field: 'task.professional_email', transforms: [] },
      ],
    },
  };
}

/** Job ids a query names at most (far under SQLite's and Postgres's limits on bound values). */
const JOBS_PER_QUERY = 500;

/**
 * The rows of `jobIds` under `template`, by job: one query per {@link JOBS_PER_QUERY} jobs; `'all'`: whatever
 * their job change status (the template's filter otherwise).
 */
async function rowsByJob(
  db: Kysely<Database>,
  template: ExportTemplate,
  jobIds: readonly string[],
  pauseEvery: number | undefined,
  jobChangeStatuses?: 'all',
) {
  const header = templateHeader(template);
  let read = 0;
  const byJob = new Map<string, Array<Record<string, string>>>();
  const unique = [...new Set(jobIds)];
  for (let start = 0; start < unique.length; start += JOBS_PER_QUERY) {
    const options = { jobIds: unique.slice(start, start + JOBS_PER_QUERY), all: true, jobChangeStatuses };
    for await (const { jobId, cells } of exportJobRows(db, template, options)) {
      read += 1;
      if (pauseEvery !== undefined && read % pauseEvery === 0)
        await new Promise((resolve) => setImmediate(resolve));
      const row = Object.fromEntries(header.map((column, index) => [column, cells[index] ?? '']));
      const rows = byJob.get(jobId);
      if (rows === undefined) byJob.set(jobId, [row]);
      else rows.push(row);
    }
  }
  return byJob;
}

/** A job's rows for a CRM: its companies and its contacts. */
export interface JobCrmRows {
  readonly companies: Array<Record<string, string>>;
  readonly contacts: Array<Record<string, string>>;
}

/**
 * Each job's rows for the kind it is (a reveal's companies, a search's or job change's persons), read for the
 * whole batch at once: one query per template. A record id carried in `custom_fields` names one record: a
 * reveal's company or a job change's contact; a search's task names no person, so its persons never take it
 * (`recordIdColumn` emptied). Each job's rows are its own copies (a job twice in a batch gets two).
 * `pauseEvery`: the event loop is let go every so many rows (a SQLite read would hold it to the end).
 */
export async function crmRows(
  db: Kysely<Database>,
  templates: CrmTemplates,
  jobs: ReadonlyArray<{ readonly jobId: string; readonly kind: string }>,
  recordIdColumn?: string,
  pauseEvery?: number,
): Promise<JobCrmRows[]> {
  const ofKind = (kinds: readonly string[]) =>
    jobs.filter((job) => kinds.includes(job.kind)).map((job) => job.jobId);
  const reveals = ofKind(['company_reveal']);
  const persons = ofKind(['search_contact', 'job_change']);
  const companies =
    reveals.length === 0 ? new Map() : await rowsByJob(db, templates.companies, reveals, pauseEvery);
  const contacts =
    persons.length === 0 ? new Map() : await rowsByJob(db, templates.contacts, persons, pauseEvery);
  const copies = (rows: Array<Record<string, string>> | undefined) => (rows ?? []).map((row) => ({ ...row }));
  return jobs.map((job) => {
    const theirContacts =
      job.kind === 'search_contact' || job.kind === 'job_change' ? copies(contacts.get(job.jobId)) : [];
    if (job.kind === 'search_contact' && recordIdColumn !== undefined)
      for (const row of theirContacts) if (row[recordIdColumn] !== undefined) row[recordIdColumn] = '';
    return {
      companies: job.kind === 'company_reveal' ? copies(companies.get(job.jobId)) : [],
      contacts: theirContacts,
    };
  });
}

/**
 * Whether an event gives at most one record of each object: a reveal (its company), a job change (its person
 * and their employer), a watch's change (one person). A search gives as many persons as it found.
 */
export function atMostOneRecordEach(event: { readonly kind: string; readonly change?: unknown }): boolean {
  return event.change !== undefined || event.kind === 'company_reveal' || event.kind === 'job_change';
}

function fieldsOf(value: unknown): Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * Watch changes as rows of the contacts template, each read from the job that found it, for the whole batch
 * at once (docs/watches.md):
 * - a job change's change (`moved`, `left`, `returned`, `title`, or a reported `baseline`): the job's
 *   person row, whatever its status (the templates' status filter keeps moved and left only), **update
 *   only**: the contact is found (carried id, ids found before, key, search) and never created. A check
 *   that found the contact back at the company asked about (`no_change`: `returned`) has no person: its
 *   row is the task's (e-mail, carried id) with that company, from the change, as the employer;
 * - a search's person (`new_person`, or a reported `baseline`): that person's row of the search, written
 *   like any search result (created when the CRM does not hold it; a search carries no person's id).
 * A change whose job holds no such row (purged) is refused: its event fails, replayable.
 */
export async function changeRows(
  db: Kysely<Database>,
  templates: CrmTemplates,
  changes: readonly EventChange[],
  recordIdColumn?: string,
  pauseEvery?: number,
): Promise<Array<Omit<EventRows, 'event'>>> {
  const ofPersons = (wanted: boolean) =>
    changes.filter((change) => (fieldsOf(change.after).status === undefined) === wanted).map((c) => c.job_id);
  // One read per kind of change for the whole batch: a search's persons under the template's status filter,
  // a job change's person whatever its status.
  const persons = ofPersons(true);
  const moves = ofPersons(false);
  const searched: Map<string, Array<Record<string, string>>> = persons.length === 0
    ? new Map()
    : await rowsByJob(db, templates.contacts, persons, pauseEvery);
  const checked: Map<string, Array<Record<string, string>>> = moves.length === 0
    ? new Map()
    : await rowsByJob(db, templates.contacts, moves, pauseEvery, 'all');
  return changes.map((change) => {
    const after = fieldsOf(change.after);
    const rows = (after.status === undefined ? searched : checked).get(change.job_id);
    return rowsOfChange(
      change,
      after,
      (rows ?? []).map((row) => ({ ...row })),
      recordIdColumn,
    );
  });
}

function rowsOfChange(
  change: EventChange,
  after: Readonly<Record<string, unknown>>,
  jobRows: Array<Record<string, string>>,
  recordIdColumn: string | undefined,
): Omit<EventRows, 'event'> {
  const refused = (reason: string) => ({ companies: [], contacts: [], updateOnly: true, refused: reason });
  if (after.status === undefined) {
    const personId = normalizePersonId(textOf(after.id));
    if (personId === undefined) return refused(`watch change ${change.id} names no person`);
    const contacts = jobRows.filter((row) => normalizePersonId(row[PERSON_ID_COLUMN]) === personId);
    if (recordIdColumn !== undefined) for (const row of contacts) row[recordIdColumn] = '';
    if (contacts.length === 0)
      return refused(`watch change ${change.id}: its job ${change.job_id} no longer holds the person`);
    return { companies: [], contacts: contacts.slice(0, 1), updateOnly: false };
  }
  if (jobRows.length === 0)
    return refused(`watch change ${change.id}: its job ${change.job_id} is no longer stored`);
  const [contact] = jobRows;
  if (after.status === 'no_change') {
    contact![COMPANY_DOMAIN_COLUMN] = textOf(after.company_domain);
    contact![COMPANY_NAME_COLUMN] = textOf(after.company_name);
  }
  return { companies: [], contacts: [contact!], updateOnly: true };
}

/**
 * The normalized domains of every company a destination would write (revealed, in the companies template's
 * `domainColumn`, or a person's employer), sorted: what setup adopts.
 */
export async function storedDomains(
  db: Kysely<Database>,
  templates: CrmTemplates,
  domainColumn: string,
): Promise<string[]> {
  const domains = new Set<string>();
  for (const [template, column] of [
    [templates.companies, domainColumn],
    [templates.contacts, COMPANY_DOMAIN_COLUMN],
  ] as const) {
    const index = templateHeader(template).indexOf(column);
    if (index < 0) continue;
    for await (const cells of exportRows(db, template)) {
      const domain = normalizeDomain(cells[index]);
      if (domain !== undefined) domains.add(domain);
    }
  }
  return [...domains].sort();
}
