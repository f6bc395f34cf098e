/**
 * `hooksync destinations setup <name>`: makes a HubSpot portal ready for the destination, idempotently.
 * Creates the custom properties the mapping needs (the two unique keys and every `hooksync_*` property the
 * templates write), then adopts the companies the portal already holds: each stored company whose domain
 * matches exactly one HubSpot company without the key gets the key stamped, so the first sync updates it
 * instead of creating a duplicate. Two or more matches are reported, never guessed. Search is paced under
 * its own limit by the client. With `dryRun`, only reads: says what it would create and adopt.
 */
import type { Kysely } from 'kysely';
import { exportRows, templateHeader } from '../../export/export-rows.js';
import type { Database } from '../../storage/database.js';
import type { PropertyDefinition } from './check-values.js';
import { HUBSPOT_BATCH_LIMIT, type HubSpotClient } from './hubspot-client.js';
import type { HubSpotTemplates } from './hubspot-rows.js';
import { COMPANY_DOMAIN_COLUMN, type HubSpotKeys } from './map-records.js';
import { normalizeDomain } from './normalize-keys.js';

/** Domains per search call (one IN filter) and results per page: HubSpot's search limits. */
export const SEARCH_VALUES = 100;
export const SEARCH_PAGE = 200;

/** What setup did (or, in a dry run, would do). */
export interface SetupReport {
  readonly properties: Array<{ object: 'companies' | 'contacts'; name: string; unique: boolean }>;
  /** A key property that exists without unique values: upserts by it would be refused. */
  readonly problems: string[];
  readonly adopted: Array<{ domain: string; id: string }>;
  readonly ambiguous: Array<{ domain: string; ids: string[] }>;
  /** Companies that already carry the key. */
  alreadyKeyed: number;
  readonly dryRun: boolean;
}

/** The properties the mapping writes that HubSpot does not define: hooksync_* and the keys. */
function wantedProperties(templates: HubSpotTemplates, keys: HubSpotKeys) {
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
async function storedDomains(db: Kysely<Database>, templates: HubSpotTemplates): Promise<string[]> {
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

/** Runs setup against the portal. */
export async function setupPortal(options: {
  readonly client: HubSpotClient;
  readonly db: Kysely<Database>;
  readonly templates: HubSpotTemplates;
  readonly keys: HubSpotKeys;
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
    dryRun,
  };
  const defined = new Map<string, Map<string, PropertyDefinition>>();
  for (const object of ['companies', 'contacts'] as const) {
    const answer = await client.request('GET', `/crm/v3/properties/${object}`, undefined, signal);
    const results = (answer.body as { results?: PropertyDefinition[] } | null)?.results ?? [];
    defined.set(object, new Map(results.map((definition) => [definition.name, definition])));
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

  const domains = await storedDomains(options.db, options.templates);
  const stamps: Array<{ id: string; properties: Record<string, string> }> = [];
  for (let at = 0; at < domains.length; at += SEARCH_VALUES) {
    const chunk = domains.slice(at, at + SEARCH_VALUES);
    // The portal's own spellings (www., upper case) are what the search must also find.
    const values = chunk.flatMap((domain) => [domain, `www.${domain}`]);
    const found = new Map<string, Array<{ id: string; keyed: boolean }>>();
    let after: string | undefined;
    do {
      const answer = await client.request(
        'POST',
        '/crm/v3/objects/companies/search',
        {
          filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'IN', values }] }],
          properties: ['domain', keys.companyKey],
          limit: SEARCH_PAGE,
          ...(after !== undefined ? { after } : {}),
        },
        signal,
      );
      const body = answer.body as {
        results?: Array<{ id: string; properties?: Record<string, string | null> }>;
        paging?: { next?: { after?: string } };
      } | null;
      for (const result of body?.results ?? []) {
        const domain = normalizeDomain(result.properties?.domain ?? undefined);
        if (domain === undefined) continue;
        const keyed = (result.properties?.[keys.companyKey] ?? '') !== '';
        found.set(domain, [...(found.get(domain) ?? []), { id: result.id, keyed }]);
      }
      after = body?.paging?.next?.after;
    } while (after !== undefined);
    for (const [domain, companies] of found) {
      if (companies.some((company) => company.keyed)) {
        report.alreadyKeyed += 1;
      } else if (companies.length > 1) {
        report.ambiguous.push({ domain, ids: companies.map((company) => company.id).sort() });
      } else {
        report.adopted.push({ domain, id: companies[0]!.id });
        stamps.push({ id: companies[0]!.id, properties: { [keys.companyKey]: domain } });
      }
    }
  }
  if (!dryRun) {
    for (let at = 0; at < stamps.length; at += HUBSPOT_BATCH_LIMIT) {
      await client.request(
        'POST',
        '/crm/v3/objects/companies/batch/update',
        { inputs: stamps.slice(at, at + HUBSPOT_BATCH_LIMIT) },
        signal,
      );
    }
  }
  return report;
}
