/**
 * `hooksync destinations setup <name>` on a Salesforce org: checks it, never changes its metadata. Describes
 * Account, Contact and Lead (the key fields External ID + Unique and case-insensitive, every mapped field
 * present and updateable: what to create or grant is printed for each one missing), reads `/limits` (the
 * org's daily API allocation and what is left of it), and adopts the records the org already holds, through
 * the CRM core's find-existing (`crm/find-existing.ts`, the ids kept in `crm_record_ids`): an Account whose
 * Website is a stored company's domain, a Contact or Lead whose Email is a stored person's (the e-mail a job
 * change was asked with) gets the key stamped (an update by its Id), so the first sync updates it instead of
 * creating a duplicate. One match only; two or more are reported as ambiguous, never guessed. With `dryRun`,
 * only reads: it says what it would stamp. Every query keeps its URI under 2,000 characters (soql.ts) and
 * every call counts against the allocation the client guards (`max_share`).
 */
import type { Kysely } from 'kysely';
import { exportRows } from '../../export/export-rows.js';
import type { ExportTemplate } from '../../export/parse-template.js';
import type { Database } from '../../storage/database.js';
import type { CrmAdapter, CrmObject, SearchField } from '../crm/crm-adapter.js';
import { createRecordIdStore } from '../crm/crm-record-ids.js';
import { type CrmTemplates, storedDomains } from '../crm/crm-rows.js';
import { findExisting } from '../crm/find-existing.js';
import type { RecordShape } from '../crm/map-records.js';
import { normalizeEmail, normalizeLinkedinUrl, normalizePersonId } from '../crm/normalize-keys.js';
import { emptySetupReport, type SetupReport } from '../crm/setup-report.js';
import { checkObjectFields, describeObject, type SalesforceObject } from './org-schema.js';
import { limitsSchema } from './salesforce-answer.js';
import type { SalesforceClient } from './salesforce-client.js';
import { writeCollections } from './write-collections.js';

/** The column setup adds to the contacts template: the e-mail a job change was asked with. */
const EMAIL_COLUMN = 'hooksync:email';

/** What setup needs. */
export interface OrgSetupOptions {
  readonly client: SalesforceClient;
  readonly adapter: CrmAdapter;
  readonly db: Kysely<Database>;
  readonly destination: string;
  readonly templates: CrmTemplates;
  /** The salesforce-leads template (the Lead's mapped fields). */
  readonly leads: ExportTemplate;
  readonly shape: RecordShape;
  readonly accountKey: string;
  readonly personKey: string;
  readonly now: () => number;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}

/** The Salesforce fields a template writes (core columns such as `hooksync:…` and the carried `Id` aside). */
function mappedFields(template: ExportTemplate): string[] {
  return template.columns
    .map((column) => column.header)
    .filter((name) => /^[A-Za-z]\w*$/.test(name) && name !== 'Id');
}

/** Each stored person's key (as the core keys it) with the e-mail a job change was asked with, one per e-mail. */
async function storedPersons(options: OrgSetupOptions): Promise<Map<string, string>> {
  const template: ExportTemplate = {
    ...options.templates.contacts,
    columns: [
      ...options.templates.contacts.columns,
      { header: EMAIL_COLUMN, field: 'task.professional_email', transforms: [] },
    ],
  };
  const headers = template.columns.map((c) => c.header);
  const at = (name: string | undefined) => (name === undefined ? -1 : headers.indexOf(name));
  const [idAt, linkedinAt, emailAt] = [
    at(options.shape.personId),
    at(options.shape.linkedinUrl),
    at(EMAIL_COLUMN),
  ];
  const byEmail = new Map<string, string>();
  for await (const cells of exportRows(options.db, template)) {
    const email = normalizeEmail(cells[emailAt]);
    const key = normalizePersonId(cells[idAt]) ?? normalizeLinkedinUrl(cells[linkedinAt]);
    if (email !== undefined && key !== undefined && !byEmail.has(email)) byEmail.set(email, key);
  }
  return byEmail;
}

/** Runs setup against the org. */
export async function setupOrg(options: OrgSetupOptions): Promise<SetupReport> {
  const { client, accountKey, personKey, dryRun, signal } = options;
  const report: SetupReport = {
    ...emptySetupReport(dryRun),
    warnings: [],
    adoptedPersons: [],
    ambiguousPersons: [],
  };
  const wanted: Array<[SalesforceObject, string, string[]]> = [
    ['Account', accountKey, mappedFields(options.templates.companies)],
    ['Contact', personKey, mappedFields(options.templates.contacts)],
    ['Lead', personKey, mappedFields(options.leads)],
  ];
  let keysReady = true;
  for (const [object, key, mapped] of wanted) {
    const problems = checkObjectFields(object, await describeObject(client, object, signal), { key, mapped });
    if (problems.some((problem) => problem.field === key)) keysReady = false;
    // A key field blocks every write of its object, and a field the user cannot update fails the records
    // that carry it; a mapped field that does not exist is only left out of the writes (check-values.ts).
    for (const problem of problems) {
      const line = `${object}.${problem.field} ${problem.problem}: ${problem.fix}`;
      if (problem.field !== key && problem.problem === 'is missing')
        report.warnings?.push(`${line} (until then it is left out of the writes)`);
      else report.problems.push(line);
    }
  }
  const limits = await client.json(limitsSchema, { method: 'GET', path: 'limits' }, signal);
  report.allocation = { max: limits.DailyApiRequests.Max, remaining: limits.DailyApiRequests.Remaining };
  if (!keysReady) {
    report.problems.push('nothing adopted: the key fields above must exist first (then run setup again)');
    return report;
  }

  const store = createRecordIdStore(options.db, options.destination, options.now);
  const { adapter } = options;
  const find = async (
    object: CrmObject,
    idProperty: string,
    entries: ReadonlyArray<readonly [key: string, value: string]>,
    field: SearchField,
  ) => {
    const found = await findExisting({
      adapter,
      store,
      object,
      inputs: entries.map(([key, value]) => ({
        idProperty,
        key,
        carriedId: undefined,
        readFirst: false,
        lookups: [{ field, value }],
      })),
      signal,
    });
    // Keys the org holds already (found keyed now, or recorded before): nothing to stamp.
    const recorded = await store.lookUp(
      object,
      entries.map(([key]) => key),
    );
    const keyed = entries.filter(([key]) => {
      const it = found.get(key);
      return (it?.kind === 'by-key' || (it?.kind === 'id' && it.how === 'recorded')) && recorded.has(key);
    }).length;
    return { found, keyed };
  };

  const domains = await storedDomains(options.db, options.templates, options.shape.domain);
  const companies = await find(
    'companies',
    accountKey,
    domains.map((domain) => [domain, domain] as const),
    'domain',
  );
  report.alreadyKeyed = companies.keyed;
  for (const domain of domains) {
    const it = companies.found.get(domain);
    if (it?.kind === 'id' && it.how === 'adopted') report.adopted.push({ domain, id: it.id });
    if (it?.kind === 'ambiguous') report.ambiguous.push({ domain, ids: [...it.ids] });
  }

  const persons = await storedPersons(options);
  const people = await find(
    'contacts',
    personKey,
    [...persons].map(([email, key]) => [key, email] as const),
    'email',
  );
  report.contactsAlreadyKeyed = people.keyed;
  for (const [email, key] of [...persons].sort(([a], [b]) => a.localeCompare(b))) {
    const it = people.found.get(key);
    if (it?.kind === 'id' && it.how === 'adopted')
      report.adoptedPersons!.push({
        email,
        key,
        object: it.id.startsWith('00Q') ? 'Lead' : 'Contact',
        id: it.id,
      });
    if (it?.kind === 'ambiguous') report.ambiguousPersons!.push({ email, ids: [...it.ids] });
  }
  if (dryRun) return report;

  const stamp = async (
    object: SalesforceObject,
    crmObject: CrmObject,
    keyField: string,
    records: ReadonlyArray<{ key: string; id: string }>,
  ) => {
    if (records.length === 0) return;
    const outcomes = await writeCollections(
      client,
      { object, keyField, records: records.map(({ key, id }) => ({ key, id, fields: {} })) },
      signal,
    );
    const ids = new Map<string, string>();
    outcomes.forEach((outcome, at) => {
      const { key, id } = records[at]!;
      if (outcome.ok) ids.set(key, id);
      else report.problems.push(`${object} ${id} (${key}): the key could not be stamped: ${outcome.error}`);
    });
    await store.record(crmObject, ids);
  };
  await stamp(
    'Account',
    'companies',
    accountKey,
    report.adopted.map(({ domain, id }) => ({ key: domain, id })),
  );
  for (const object of ['Contact', 'Lead'] as const)
    await stamp(
      object,
      'contacts',
      personKey,
      report.adoptedPersons!.filter((p) => p.object === object),
    );
  return report;
}
