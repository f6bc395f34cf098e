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
import { z } from 'zod';
import { exportRows, templateHeader } from '../../export/export-rows.js';
import type { Database } from '../../storage/database.js';
import { checkAnswer } from '../crm/check-answer.js';
import type { FieldDefinition } from '../crm/check-values.js';
import type { CrmTemplates } from '../crm/crm-rows.js';
import { COMPANY_DOMAIN_COLUMN, type CrmKeys } from '../crm/map-records.js';
import { normalizeDomain, normalizeEmail, normalizeLinkedinUrl } from '../crm/normalize-keys.js';
import type { SetupReport } from '../crm/setup-report.js';
import { readDefinitions } from './hubspot-adapter.js';
import { HUBSPOT_BATCH_LIMIT, type HubSpotClient } from './hubspot-client.js';

/** Domains per search call (one IN filter) and results per page: HubSpot's search limits. */
export const SEARCH_VALUES = 100;
export const SEARCH_PAGE = 200;
/** Results one search query reaches at most: HubSpot answers 400 past them, so paging stops there. */
export const SEARCH_RESULTS_LIMIT = 10_000;

const searchSchema = z.object({
  results: z.array(
    z.object({
      id: z.union([z.string(), z.number()]).transform(String),
      properties: z.record(z.string(), z.string().nullable()).default({}),
    }),
  ),
  paging: z.object({ next: z.object({ after: z.string() }).optional() }).optional(),
});

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

/** The normalized domains of every company the destination would write (revealed, or a person's employer). */
async function storedDomains(db: Kysely<Database>, templates: CrmTemplates): Promise<string[]> {
  const domains = new Set<string>();
  for (const [template, column] of [
    [templates.companies, 'domain'],
    [templates.contacts, COMPANY_DOMAIN_COLUMN],
  ] as const) {
    const index = templateHeader(template).indexOf(column);
    for await (const cells of exportRows(db, template)) {
      const domain = normalizeDomain(cells[index]);
      if (domain !== undefined) domains.add(domain);
    }
  }
  return [...domains].sort();
}

/** The portal's contact property for a LinkedIn profile URL (the `hubspot-contacts` template writes it). */
const LINKEDIN_PROPERTY = 'hs_linkedin_url';

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

/** How a portal commonly spells a profile URL that normalizes to `url` (https://www.linkedin.com/in/slug). */
function linkedinSpellings(url: string): string[] {
  const bare = url.replace(/^https:\/\/www\./, '');
  return [
    url,
    `${url}/`,
    `https://${bare}`,
    `http://www.${bare}`,
    `www.${bare}`,
    `www.${bare}/`,
    bare,
    `${bare}/`,
  ];
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
  const report: SetupReport = {
    properties: [],
    problems: [],
    adopted: [],
    ambiguous: [],
    alreadyKeyed: 0,
    adoptedContacts: [],
    ambiguousContacts: [],
    contactsAlreadyKeyed: 0,
    dryRun,
  };
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
      searchProperty: 'domain',
      keyProperty: keys.companyKey,
      keys: await storedDomains(options.db, options.templates),
      // The portal's own spellings (www.) are what the search must also find.
      spellings: (domain) => [domain, `www.${domain}`],
      normalize: normalizeDomain,
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
      searchProperty: LINKEDIN_PROPERTY,
      keyProperty: keys.contactKey,
      keys: await storedLinkedinUrls(options.db, options.templates),
      spellings: linkedinSpellings,
      normalize: normalizeLinkedinUrl,
    },
    dryRun,
    signal,
  );
  for (const { key, id } of contacts.adopted) report.adoptedContacts.push({ linkedinUrl: key, id });
  for (const { key, ids } of contacts.ambiguous) report.ambiguousContacts.push({ linkedinUrl: key, ids });
  report.contactsAlreadyKeyed = contacts.alreadyKeyed;
  return report;
}

/** One kind of record setup adopts: the stored keys, how the portal may spell them, and where. */
interface Adoption {
  readonly object: 'companies' | 'contacts';
  /** The portal's property that holds the value a key is made from (domain, hs_linkedin_url). */
  readonly searchProperty: string;
  /** The destination's unique key property, stamped on an adopted record. */
  readonly keyProperty: string;
  /** Normalized keys of what the destination would write, sorted. */
  readonly keys: readonly string[];
  readonly spellings: (key: string) => string[];
  readonly normalize: (value: string | undefined) => string | undefined;
}

/**
 * Finds the records the portal holds for `keys` (search by the spellings, 100 values per call), and stamps the
 * key on each record matched alone and not keyed yet (unless `dryRun`); two or more matches are ambiguous.
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
  const perCall = Math.max(1, Math.floor(SEARCH_VALUES / adoption.spellings('x').length));
  for (let at = 0; at < adoption.keys.length; at += perCall) {
    const wanted = new Set(adoption.keys.slice(at, at + perCall));
    const values = [...wanted].flatMap(adoption.spellings);
    const found = new Map<string, Array<{ id: string; keyed: boolean }>>();
    let after: string | undefined;
    let seen = 0;
    let more = false;
    do {
      const call = `POST /crm/v3/objects/${adoption.object}/search`;
      const answer = await client.request(
        'POST',
        `/crm/v3/objects/${adoption.object}/search`,
        {
          filterGroups: [{ filters: [{ propertyName: adoption.searchProperty, operator: 'IN', values }] }],
          properties: [adoption.searchProperty, adoption.keyProperty],
          limit: SEARCH_PAGE,
          ...(after !== undefined ? { after } : {}),
        },
        signal,
      );
      const body = checkAnswer(searchSchema, answer, { crm: 'HubSpot', call });
      for (const record of body.results) {
        const key = adoption.normalize(record.properties[adoption.searchProperty] ?? undefined);
        if (key === undefined || !wanted.has(key)) continue;
        const keyed = (record.properties[adoption.keyProperty] ?? '') !== '';
        const held = found.get(key);
        if (held === undefined) found.set(key, [{ id: record.id, keyed }]);
        else held.push({ id: record.id, keyed });
      }
      seen += body.results.length;
      after = body.paging?.next?.after;
      // HubSpot answers 400 past 10,000 results of one query: what lies beyond is not reachable by paging.
      more = after !== undefined && body.results.length > 0 && seen + SEARCH_PAGE <= SEARCH_RESULTS_LIMIT;
    } while (more);
    for (const [key, records] of found) {
      if (records.some((record) => record.keyed)) result.alreadyKeyed += 1;
      else if (records.length > 1)
        result.ambiguous.push({ key, ids: records.map((record) => record.id).sort() });
      else result.adopted.push({ key, id: records[0]!.id });
    }
  }
  if (!dryRun) {
    const stamps = result.adopted.map(({ key, id }) => ({ id, properties: { [adoption.keyProperty]: key } }));
    for (let at = 0; at < stamps.length; at += HUBSPOT_BATCH_LIMIT) {
      await client.request(
        'POST',
        `/crm/v3/objects/${adoption.object}/batch/update`,
        { inputs: stamps.slice(at, at + HUBSPOT_BATCH_LIMIT) },
        signal,
      );
    }
  }
  return result;
}
