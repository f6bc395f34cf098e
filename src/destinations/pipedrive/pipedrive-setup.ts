/**
 * `hooksync destinations setup <name>` on a Pipedrive destination: checks the fields the pipedrive-*
 * templates write, creates the two key fields (`org_key_field`, `person_key_field`, Text) when they are
 * missing and the token may, then adopts what the company already holds: each stored organization (by its
 * normalized domain in the key field) and person (by e-mail, else by the LinkedIn URL in the key field) the
 * key → id map does not know yet is searched with `exact_match` (20 tokens, through the core's adapter
 * search, each hit confirmed by its key); one match is recorded in the map (`crm_record_ids`), so the first
 * sync updates it instead of creating a duplicate; several are reported, never guessed. Nothing is written
 * to a record. With `dryRun`: reads only (the searches still cost their tokens) and says what it would do.
 */
import type { Kysely } from 'kysely';
import { CrmError } from '../../errors.js';
import { exportRows, templateHeader } from '../../export/export-rows.js';
import type { Database } from '../../storage/database.js';
import type { CrmObject, SearchField } from '../crm/crm-adapter.js';
import type { CrmHttp } from '../crm/crm-http.js';
import { type CrmTemplates, storedDomains } from '../crm/crm-rows.js';
import type { RecordIdStore } from '../crm/find-existing.js';
import type { RecordShape } from '../crm/map-records.js';
import { normalizeEmail, normalizeLinkedinUrl } from '../crm/normalize-keys.js';
import { emptySetupReport, type SetupReport } from '../crm/setup-report.js';
import type { PipedriveAdapter } from './pipedrive-adapter.js';
import { FIELDS_PATH } from './pipedrive-fields.js';

/** Field types search can match a whole key in (§2: Text; a long text also holds one). */
const KEY_TYPES = new Set(['varchar', 'varchar_auto', 'text']);

const WHICH: Record<CrmObject, string> = { companies: 'organization', contacts: 'person' };

/** A record to adopt: its key and the field it is searched by. */
interface Wanted {
  readonly key: string;
  readonly field: SearchField;
}

/** The keys of every organization and person the destination would write, from the stored results. */
async function storedKeys(
  db: Kysely<Database>,
  templates: CrmTemplates,
  shape: RecordShape,
): Promise<Record<CrmObject, Wanted[]>> {
  const domains = await storedDomains(db, templates, shape.domain);
  const header = templateHeader(templates.contacts);
  const [emailAt, linkedinAt] = [header.indexOf(shape.email ?? ''), header.indexOf(shape.linkedinUrl)];
  const persons = new Map<string, Wanted>();
  for await (const cells of exportRows(db, templates.contacts)) {
    const email = emailAt < 0 ? undefined : normalizeEmail(cells[emailAt]);
    const linkedin = normalizeLinkedinUrl(cells[linkedinAt]);
    if (email !== undefined) persons.set(email, { key: email, field: 'email' });
    else if (linkedin !== undefined) persons.set(linkedin, { key: linkedin, field: 'linkedinUrl' });
  }
  const sorted = (wanted: Iterable<Wanted>) => [...wanted].sort((a, b) => a.key.localeCompare(b.key));
  return {
    companies: domains.map((key) => ({ key, field: 'domain' as const })),
    contacts: sorted(persons.values()),
  };
}

/** Runs setup. */
export async function setUpPipedrive(options: {
  readonly adapter: PipedriveAdapter;
  readonly client: CrmHttp;
  readonly db: Kysely<Database>;
  readonly store: RecordIdStore;
  readonly templates: CrmTemplates;
  readonly shape: RecordShape;
  readonly keyFields: Readonly<Record<CrmObject, string>>;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}): Promise<SetupReport> {
  const { adapter, client, store, keyFields, dryRun, signal } = options;
  const report = emptySetupReport(dryRun);
  const spentBefore = adapter.tokens?.spent() ?? 0;
  let created = false;
  for (const object of ['companies', 'contacts'] as const) {
    const fields = await adapter.fields(object, signal);
    const keyField = keyFields[object];
    const held = fields.get(keyField);
    if (held !== undefined && !KEY_TYPES.has(held.type))
      report.problems.push(
        `${WHICH[object]} field "${keyField}" is a ${held.type} field: exact search cannot find keys in it; make it a Text field or name another`,
      );
    if (held === undefined) {
      report.properties.push({ object, name: keyField, unique: false });
      if (!dryRun) {
        try {
          await client.request(
            'POST',
            FIELDS_PATH[object],
            { name: keyField, field_type: 'varchar' },
            signal,
          );
          created = true;
        } catch (error) {
          if (!(error instanceof CrmError) || error.trouble.kind !== 'fail') throw error;
          report.problems.push(
            `could not create the ${WHICH[object]} field "${keyField}" (${error.message}): create it in Pipedrive as a Text field (an admin may)`,
          );
        }
      }
    }
    const template = object === 'companies' ? options.templates.companies : options.templates.contacts;
    for (const column of template.columns) {
      const name = column.header;
      if (name === keyField || name.includes(':') || name === options.shape.recordId || fields.has(name))
        continue;
      report.notes!.push(
        `${WHICH[object]} field "${name}" does not exist: its values are left out until it is created (a Text field)`,
      );
    }
  }
  if (created) adapter.reloadFields();
  if (report.problems.length > 0 || (dryRun && report.properties.length > 0)) {
    // Without its key fields nothing can be searched; the dry run says what it would create first.
    report.tokens = (adapter.tokens?.spent() ?? 0) - spentBefore;
    return report;
  }

  const wanted = await storedKeys(options.db, options.templates, options.shape);
  for (const object of ['companies', 'contacts'] as const) {
    const known = await store.lookUp(
      object,
      wanted[object].map((w) => w.key),
    );
    const adopted = new Map<string, string>();
    for (const { key, field } of wanted[object]) {
      if (known.has(key)) {
        if (object === 'companies') report.alreadyKeyed += 1;
        else report.contactsAlreadyKeyed += 1;
        continue;
      }
      const found = (await adapter.search!(object, field, [key], keyFields[object], signal)).get(key) ?? [];
      const ids = [...new Set(found.map((candidate) => candidate.id))].sort();
      if (ids.length === 1) {
        adopted.set(key, ids[0]!);
        if (object === 'companies') report.adopted.push({ domain: key, id: ids[0]! });
        else report.adoptedContacts.push({ linkedinUrl: key, id: ids[0]! });
      } else if (ids.length > 1) {
        if (object === 'companies') report.ambiguous.push({ domain: key, ids });
        else report.ambiguousContacts.push({ linkedinUrl: key, ids });
      }
    }
    if (!dryRun) await store.record(object, adopted);
  }
  report.tokens = (adapter.tokens?.spent() ?? 0) - spentBefore;
  return report;
}
