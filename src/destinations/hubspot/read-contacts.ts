/**
 * A HubSpot portal's contacts as a watch reads them (`from.hubspot`, docs/watches.md), page by page through
 * the destination's client: every call paced under the destination's rate shared by every process
 * (shared-pace.ts; search under its own per-second window), read under the core's size cap, its answer
 * checked with zod and retried on HubSpot's policy. All contacts come from the list endpoint, paged with
 * `after`; a filter (each property EQ its value) goes through search, sorted by `hs_object_id` and paged by
 * `hs_object_id GT` the last id seen: search's `after` is an offset into a query that may be days old in a
 * cycle spread over its period, and stops at 10,000 results. Each contact's company domain is its primary
 * associated company's `domain` (v4 associations, then the companies' batch read): the company the portal
 * shows the contact at. A page (at most 200 contacts) is all that is held at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { CrmError } from '../../errors.js';
import { checkAnswer } from '../crm/check-answer.js';
import type { ContactReader, ContactReaderDeps, ContactRow, WatchSourceType } from '../destination-type.js';
import { HUBSPOT_BATCH_LIMIT, type HubSpotClient } from './hubspot-client.js';
import { LINKEDIN_PROPERTY, SEARCH_PAGE } from './hubspot-search.js';

/** The contact properties a watch maps by itself (docs/watches.md). */
export const CONTACT_PROPERTIES = ['email', LINKEDIN_PROPERTY, 'firstname', 'lastname'] as const;
/** Contacts per page of the list endpoint: its maximum. */
export const LIST_PAGE = 100;
/** Filters a watch may give: search takes 10 in a group, one of which pages (`hs_object_id GT`). */
export const MAX_FILTERS = 9;
/** A call of the reader gives up after this long (then the cycle stops, naming the CRM's problem). */
export const READ_TIMEOUT_MS = 60_000;
/** Rate-limit answers waited out per call before the read gives up. */
const RATE_WAITS = 5;
/** The longest rate-limit wait the reader sits out (a DAILY limit is not waited for). */
const MAX_RATE_WAIT_MS = 60_000;
/**
 * Pages one reading follows at most (issue 43): 10 million contacts at the list's 100 a page; a portal that
 * pages on past it, or a cursor that does not move, stops the reading (and the cycle, `stopped: source`).
 */
export const MAX_SOURCE_PAGES = 100_000;
/** HubSpot's association type of a contact's primary company. */
const PRIMARY_COMPANY_TYPE = 1;

const recordsSchema = z.object({
  results: z.array(
    z.object({
      id: z.union([z.string(), z.number()]).transform(String),
      properties: z.record(z.string(), z.string().nullable()).default({}),
    }),
  ),
  paging: z.object({ next: z.object({ after: z.string() }).optional() }).optional(),
});

const associationsSchema = z.object({
  results: z.array(
    z.object({
      from: z.object({ id: z.union([z.string(), z.number()]).transform(String) }),
      to: z.array(
        z.object({
          toObjectId: z.union([z.string(), z.number()]).transform(String),
          associationTypes: z
            .array(z.object({ category: z.string().optional(), typeId: z.number() }))
            .default([]),
        }),
      ),
    }),
  ),
});

/** Property names the filter and the watch's map and carry read, checked: HubSpot's own spelling. */
export const HUBSPOT_PROPERTY_NAME = /^[a-z][a-z0-9_]{0,99}$/;

/** A watch's `from.hubspot`: the destination, and a filter (each property EQ its value). */
const hubspotSourceSchema = z.strictObject({
  destination: z.string().min(1),
  filter: z
    .record(z.string(), z.union([z.string().trim().min(1), z.number(), z.boolean()]).transform(String))
    .superRefine((filter, ctx) => {
      const names = Object.keys(filter);
      const bad = names.find((name) => !HUBSPOT_PROPERTY_NAME.test(name));
      if (bad !== undefined) {
        ctx.issues.push({
          code: 'custom',
          input: bad,
          path: [bad],
          message: 'must be a HubSpot property name',
        });
      } else if (names.length > MAX_FILTERS) {
        ctx.issues.push({
          code: 'custom',
          input: filter,
          message: `takes at most ${MAX_FILTERS} properties`,
        });
      }
    })
    .optional(),
});

/** A watch's `from.hubspot`, validated. */
export type HubSpotSourceQuery = z.output<typeof hubspotSourceSchema>;

/** HubSpot as a watch source: its `from.hubspot` and its field names (the reader is the destination's). */
export const HUBSPOT_SOURCE: WatchSourceType<HubSpotSourceQuery> = {
  crm: 'HubSpot',
  schema: hubspotSourceSchema,
  fieldName: HUBSPOT_PROPERTY_NAME,
  fieldNoun: 'HubSpot property',
};

/** A reading that cannot end: the cycle stops naming why. */
function pagingError(what: string): CrmError {
  return new CrmError(200, { kind: 'fail', error: `HubSpot answered ${what}; the reading stops` });
}

/** Whether record id `id` comes after `previous` (numeric ids, compared as numbers when they are). */
function idAfter(id: string, previous: string): boolean {
  if (/^\d+$/.test(id) && /^\d+$/.test(previous)) return BigInt(id) > BigInt(previous);
  return id > previous;
}

/** One call, rate-limit answers (another app on the account) waited out a few times. */
async function call<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  for (let waits = 0; ; waits += 1) {
    try {
      return await run(AbortSignal.timeout(READ_TIMEOUT_MS));
    } catch (error) {
      const trouble = error instanceof CrmError ? error.trouble : undefined;
      if (trouble?.kind !== 'wait' || trouble.waitMs > MAX_RATE_WAIT_MS || waits >= RATE_WAITS) throw error;
      await sleep(trouble.waitMs);
    }
  }
}

/** The domains of the contacts' primary companies, by contact id. */
async function companyDomains(
  client: HubSpotClient,
  contactIds: readonly string[],
): Promise<Map<string, string>> {
  const domains = new Map<string, string>();
  if (contactIds.length === 0) return domains;
  const path = '/crm/v4/associations/contacts/companies/batch/read';
  const linked = checkAnswer(
    associationsSchema,
    await call((signal) =>
      client.request('POST', path, { inputs: contactIds.map((id) => ({ id })) }, signal),
    ),
    { crm: 'HubSpot', call: `POST ${path}` },
  );
  const primary = new Map<string, string>();
  for (const result of linked.results) {
    const company = result.to.find((to) =>
      to.associationTypes.some((type) => type.typeId === PRIMARY_COMPANY_TYPE),
    );
    if (company !== undefined) primary.set(result.from.id, company.toObjectId);
  }
  const companyIds = [...new Set(primary.values())];
  const byCompany = new Map<string, string>();
  for (let at = 0; at < companyIds.length; at += HUBSPOT_BATCH_LIMIT) {
    const readPath = '/crm/v3/objects/companies/batch/read';
    const body = {
      inputs: companyIds.slice(at, at + HUBSPOT_BATCH_LIMIT).map((id) => ({ id })),
      properties: ['domain'],
      propertiesWithHistory: [],
    };
    const answer = checkAnswer(
      recordsSchema,
      await call((signal) => client.request('POST', readPath, body, signal)),
      { crm: 'HubSpot', call: `POST ${readPath}` },
    );
    for (const company of answer.results) {
      const domain = company.properties.domain?.trim();
      if (domain) byCompany.set(company.id, domain);
    }
  }
  for (const [contactId, companyId] of primary) {
    const domain = byCompany.get(companyId);
    if (domain !== undefined) domains.set(contactId, domain);
  }
  return domains;
}

/** One page's contacts as rows: the properties asked for, the id, the company's domain. */
async function rowsOf(
  client: HubSpotClient,
  results: z.output<typeof recordsSchema>['results'],
  properties: readonly string[],
): Promise<ContactRow[]> {
  const domains = await companyDomains(
    client,
    results.map((record) => record.id),
  );
  return results.map((record) => {
    const cells: Record<string, string> = {};
    for (const name of properties) {
      const value = record.properties[name];
      if (value !== null && value !== undefined && value.trim() !== '') cells[name] = value.trim();
    }
    cells.hs_object_id = record.id;
    const domain = domains.get(record.id);
    if (domain !== undefined) cells.company_domain = domain;
    return { id: record.id, cells };
  });
}

/** The reader, each reading through a client `clientFor` makes. */
export function createHubSpotContactReader(
  clientFor: (deps: ContactReaderDeps) => HubSpotClient,
): ContactReader<HubSpotSourceQuery> {
  return {
    idKey: 'hs_object_id',
    columns: { email: 'email', linkedin: LINKEDIN_PROPERTY, firstName: 'firstname', lastName: 'lastname' },
    async *contacts(query, fields, deps) {
      const client = clientFor(deps);
      const filter = Object.entries(query.filter ?? {});
      const properties = [...new Set([...CONTACT_PROPERTIES, ...fields, ...filter.map(([k]) => k)])];
      if (filter.length === 0) {
        let after: string | undefined;
        let pages = 0;
        do {
          pages += 1;
          if (pages > MAX_SOURCE_PAGES) throw pagingError(`more than ${MAX_SOURCE_PAGES} pages of contacts`);
          const params = new URLSearchParams({ limit: String(LIST_PAGE), properties: properties.join(',') });
          if (after !== undefined) params.set('after', after);
          const path = `/crm/v3/objects/contacts?${params.toString()}`;
          const page = checkAnswer(
            recordsSchema,
            await call((signal) => client.request('GET', path, undefined, signal)),
            { crm: 'HubSpot', call: 'GET /crm/v3/objects/contacts', maxItems: LIST_PAGE },
          );
          yield* await rowsOf(client, page.results, properties);
          const previous = after;
          after = page.results.length > 0 ? page.paging?.next?.after : undefined;
          if (after !== undefined && after === previous)
            throw pagingError(`the same page again (after=${previous})`);
        } while (after !== undefined);
        return;
      }
      const path = '/crm/v3/objects/contacts/search';
      let lastId: string | undefined;
      for (let pages = 1; ; pages += 1) {
        if (pages > MAX_SOURCE_PAGES) throw pagingError(`more than ${MAX_SOURCE_PAGES} pages of contacts`);
        const filters = filter.map(([propertyName, value]) => ({ propertyName, operator: 'EQ', value }));
        if (lastId !== undefined)
          filters.push({ propertyName: 'hs_object_id', operator: 'GT', value: lastId });
        const body = {
          filterGroups: [{ filters }],
          sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
          properties,
          limit: SEARCH_PAGE,
        };
        const page = checkAnswer(
          recordsSchema,
          await call((signal) => client.request('POST', path, body, signal)),
          { crm: 'HubSpot', call: `POST ${path}`, maxItems: SEARCH_PAGE },
        );
        yield* await rowsOf(client, page.results, properties);
        if (page.paging?.next === undefined || page.results.length === 0) return;
        const previous = lastId;
        lastId = page.results.at(-1)!.id;
        // Pages are asked by hs_object_id GT the last one: a page that does not move on would come again forever.
        if (previous !== undefined && !idAfter(lastId, previous))
          throw pagingError(`a page that does not move past id ${previous}`);
      }
    },
  };
}
