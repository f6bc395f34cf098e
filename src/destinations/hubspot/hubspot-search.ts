/**
 * HubSpot's search, as adoption uses it (at sync time and in `setup`): records whose domain, e-mail or
 * LinkedIn URL is one of many values (one IN filter over the spellings people type, 100 values a call),
 * paged 200 at a time up to HubSpot's 10,000 results a query, paced by the client under search's own limit.
 * Each value found maps to the records found for it, with their value of the destination's key property.
 */
import { z } from 'zod';
import { checkAnswer } from '../crm/check-answer.js';
import type { CrmObject, SearchCandidate, SearchField } from '../crm/crm-adapter.js';
import { normalizeDomain, normalizeEmail, normalizeLinkedinUrl } from '../crm/normalize-keys.js';
import type { HubSpotClient } from './hubspot-client.js';

/** Values per search call (one IN filter) and results per page: HubSpot's search limits. */
export const SEARCH_VALUES = 100;
export const SEARCH_PAGE = 200;
/** Results one search query reaches at most: HubSpot answers 400 past them, so paging stops there. */
export const SEARCH_RESULTS_LIMIT = 10_000;

/** The portal's contact property for a LinkedIn profile URL (the `hubspot-contacts` template writes it). */
export const LINKEDIN_PROPERTY = 'hs_linkedin_url';

const searchSchema = z.object({
  results: z.array(
    z.object({
      id: z.union([z.string(), z.number()]).transform(String),
      properties: z.record(z.string(), z.string().nullable()).default({}),
    }),
  ),
  paging: z.object({ next: z.object({ after: z.string() }).optional() }).optional(),
});

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

/** Where each searchable field lives in HubSpot, how it is spelled there, and how it normalizes. */
const FIELDS: Record<
  SearchField,
  {
    readonly property: string;
    readonly spellings: (value: string) => string[];
    readonly normalize: (value: string | undefined) => string | undefined;
  }
> = {
  domain: {
    property: 'domain',
    spellings: (domain) => [domain, `www.${domain}`],
    normalize: normalizeDomain,
  },
  email: { property: 'email', spellings: (email) => [email], normalize: normalizeEmail },
  linkedinUrl: { property: LINKEDIN_PROPERTY, spellings: linkedinSpellings, normalize: normalizeLinkedinUrl },
};

/** Searches `object` for `values` of `field`: value → the records found for it. */
export async function searchHubSpot(
  client: HubSpotClient,
  object: CrmObject,
  field: SearchField,
  values: readonly string[],
  keyProperty: string,
  signal: AbortSignal,
): Promise<Map<string, SearchCandidate[]>> {
  const { property, spellings, normalize } = FIELDS[field];
  const found = new Map<string, SearchCandidate[]>();
  const perCall = Math.max(1, Math.floor(SEARCH_VALUES / spellings('x').length));
  const call = `POST /crm/v3/objects/${object}/search`;
  for (let at = 0; at < values.length; at += perCall) {
    const wanted = new Set(values.slice(at, at + perCall));
    let after: string | undefined;
    let seen = 0;
    let more = false;
    do {
      const answer = await client.request(
        'POST',
        `/crm/v3/objects/${object}/search`,
        {
          filterGroups: [
            { filters: [{ propertyName: property, operator: 'IN', values: [...wanted].flatMap(spellings) }] },
          ],
          properties: [...new Set([property, keyProperty])],
          limit: SEARCH_PAGE,
          ...(after !== undefined ? { after } : {}),
        },
        signal,
      );
      const body = checkAnswer(searchSchema, answer, { crm: 'HubSpot', call });
      for (const record of body.results) {
        const value = normalize(record.properties[property] ?? undefined);
        if (value === undefined || !wanted.has(value)) continue;
        const key = record.properties[keyProperty]?.trim() || undefined;
        const held = found.get(value);
        if (held === undefined) found.set(value, [{ id: record.id, key }]);
        else if (!held.some((candidate) => candidate.id === record.id)) held.push({ id: record.id, key });
      }
      seen += body.results.length;
      after = body.paging?.next?.after;
      // HubSpot answers 400 past 10,000 results of one query: what lies beyond is not reachable by paging.
      more = after !== undefined && body.results.length > 0 && seen + SEARCH_PAGE <= SEARCH_RESULTS_LIMIT;
    } while (more);
  }
  return found;
}
