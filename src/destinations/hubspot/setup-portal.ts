/**
 * `hooksync destinations setup <name>`: makes a HubSpot portal ready for the destination, idempotently.
 * Creates the custom properties the mapping needs (the two unique keys and every `hooksync_*` property the
 * templates write), then adopts the records the portal already holds: each stored company whose domain, and
 * each stored person without an e-mail whose LinkedIn URL (`hs_linkedin_url`, in its common spellings)
 * matches exactly one HubSpot record without the key gets the key stamped, so the first sync updates it
 * instead of creating a duplicate (contacts with an e-mail are keyed by it, which HubSpot keeps unique). Two or more matches are reported, never guessed. Search is paced under
 * its own limit by the client. With `dryRun`, only reads: says what it would create and adopt.
 */
import type { Kysely } from 'kysely';
import { exportRows, templateHeader } from '../../export/export-rows.js';
import type { Database } from '../../storage/database.js';
import type { FieldDefinition } from '../crm/check-values.js';
import type { CrmObject, SearchField } from '../crm/crm-adapter.js';
import { type CrmTemplates, storedDomains } from '../crm/crm-rows.js';
import { chunksOf } from '../crm/in-chunks.js';
import type { CrmKeys } from '../crm/map-records.js';
import { normalizeEmail, normalizeLinkedinUrl } from '../crm/normalize-keys.js';
import { emptySetupReport, type SetupReport } from '../crm/setup-report.js';
import { readDefinitions } from './hubspot-adapter.js';
import { HUBSPOT_BATCH_LIMIT, type HubSpotClient } from './hubspot-client.js';
import { LINKEDIN_PROPERTY, searchHubSpot } from './hubspot-search.js';

/** The properties the mapping writes that HubSpot does not define: hooksync_* and the keys. */
function wantedProperties(templates: CrmTemplates, keys: CrmKeys) {
  const custom = (object: 'companies' | 'contacts', key: string) => [
    { object, name: key, unique: true },
    ...templates[object].columns
      .map((column) => column.header)
      .filter((header) => header.startsWith('hooksync_') && header !== key)
      .map((name) => ({ object, name, unique: false })),
  ];
  return [...custom('companies', keys.companyKey), ...custom('contacts', keys.contactKey)];
}

function label(name: string): string {
  const words = name.replace(/^hooksync_/, '').replaceAll('_', ' ');
  return `hooksync ${words}`;
}

/** The normalized LinkedIn URLs of the contacts the destination would key by them (those without an e-mail). */
async function storedLinkedinUrls(db: Kysely<Database>, templates: CrmTemplates): Promise<string[]> {
  const header = templateHeader(templates.contacts);
  const [emailAt, linkedinAt] = [header.indexOf('email'), header.indexOf(LINKEDIN_PROPERTY)];
  const urls = new Set<string>();
  for await (const cells of exportRows(db, templates.contacts)) {
    if (normalizeEmail(cells[emailAt]) !== undefined) continue;
    const url = normalizeLinkedinUrl(cells[linkedinAt]);
    if (url !== undefined) urls.add(url);
  }
  return [...urls].sort();
}

/** Runs setup against the portal. */
export async function setupPortal(options: {
  readonly client: HubSpotClient;
  readonly db: Kysely<Database>;
  readonly templates: CrmTemplates;
  readonly keys: CrmKeys;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}): Promise<SetupReport> {
  const { client, keys, dryRun, signal } = options;
  const report = emptySetupReport(dryRun);
  const defined = new Map<string, Map<string, FieldDefinition>>();
  for (const object of ['companies', 'contacts'] as const) {
    const answer = await client.request('GET', `/crm/v3/properties/${object}`, undefined, signal);
    defined.set(object, readDefinitions(answer, `GET /crm/v3/properties/${object}`));
  }
  for (const wanted of wantedProperties(options.templates, keys)) {
    const existing = defined.get(wanted.object)!.get(wanted.name);
    if (existing !== undefined) {
      if (wanted.unique && existing.hasUniqueValue !== true)
        report.problems.push(
          `${wanted.object} property ${wanted.name} exists without unique values: records cannot be upserted by it (choose another key, or recreate it as unique)`,
        );
      continue;
    }
    report.properties.push(wanted);
    if (dryRun) continue;
    await client.request(
      'POST',
      `/crm/v3/properties/${wanted.object}`,
      {
        name: wanted.name,
        label: label(wanted.name),
        type: 'string',
        fieldType: 'text',
        groupName: wanted.object === 'companies' ? 'companyinformation' : 'contactinformation',
        ...(wanted.unique ? { hasUniqueValue: true } : {}),
      },
      signal,
    );
  }

  const companies = await adopt(
    client,
    {
      object: 'companies',
      field: 'domain',
      keyProperty: keys.companyKey,
      keys: await storedDomains(options.db, options.templates, 'domain'),
    },
    dryRun,
    signal,
  );
  for (const { key, id } of companies.adopted) report.adopted.push({ domain: key, id });
  for (const { key, ids } of companies.ambiguous) report.ambiguous.push({ domain: key, ids });
  report.alreadyKeyed = companies.alreadyKeyed;
  const contacts = await adopt(
    client,
    {
      object: 'contacts',
      field: 'linkedinUrl',
      keyProperty: keys.contactKey,
      keys: await storedLinkedinUrls(options.db, options.templates),
    },
    dryRun,
    signal,
  );
  for (const { key, id } of contacts.adopted) report.adoptedContacts.push({ linkedinUrl: key, id });
  for (const { key, ids } of contacts.ambiguous) report.ambiguousContacts.push({ linkedinUrl: key, ids });
  report.contactsAlreadyKeyed = contacts.alreadyKeyed;
  return report;
}

/** One kind of record setup adopts: the stored keys, the field they are searched by, and the key property. */
interface Adoption {
  readonly object: CrmObject;
  readonly field: SearchField;
  /** The destination's unique key property, stamped on an adopted record. */
  readonly keyProperty: string;
  /** Normalized keys of what the destination would write, sorted. */
  readonly keys: readonly string[];
}

/**
 * Finds the records the portal holds for `keys` (hubspot-search.ts), and stamps the key on each record
 * matched alone and not keyed yet (unless `dryRun`); two or more matches are ambiguous.
 */
async function adopt(
  client: HubSpotClient,
  adoption: Adoption,
  dryRun: boolean,
  signal: AbortSignal,
): Promise<{
  adopted: Array<{ key: string; id: string }>;
  ambiguous: Array<{ key: string; ids: string[] }>;
  alreadyKeyed: number;
}> {
  const result = {
    adopted: [] as Array<{ key: string; id: string }>,
    ambiguous: [] as Array<{ key: string; ids: string[] }>,
    alreadyKeyed: 0,
  };
  const found = await searchHubSpot(
    client,
    adoption.object,
    adoption.field,
    adoption.keys,
    adoption.keyProperty,
    signal,
  );
  for (const [key, records] of found) {
    if (records.some((record) => record.key !== undefined)) result.alreadyKeyed += 1;
    else if (records.length > 1)
      result.ambiguous.push({ key, ids: records.map((record) => record.id).sort() });
    else result.adopted.push({ key, id: records[0]!.id });
  }
  if (!dryRun) {
    const stamps = result.adopted.map(({ key, id }) => ({ id, properties: { [adoption.keyProperty]: key } }));
    for (const inputs of chunksOf(stamps, HUBSPOT_BATCH_LIMIT)) {
      await client.request('POST', `/crm/v3/objects/${adoption.object}/batch/update`, { inputs }, signal);
    }
  }
  return result;
}
