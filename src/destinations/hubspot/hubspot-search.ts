/**
 * HubSpot's search, as adoption uses it (at sync time and in `setup`): records whose domain, website, name,
 * e-mail, LinkedIn URL or last name is one of many values (one IN filter over the spellings people type,
 * 100 values a call),
 * paged 200 at a time up to HubSpot's 10,000 results a query, paced by the client under search's own limit.
 * Each value found maps to the records found for it, with their value of the destination's key property.
 */
import { z } from 'zod';
import { checkAnswer } from '../crm/check-answer.js';
import type { CrmObject, SearchCandidate, SearchField } from '../crm/crm-adapter.js';
import { chunksOf } from '../crm/in-chunks.js';
import {
  normalizeDomain,
  normalizeEmail,
  normalizeLinkedinUrl,
  normalizeName,
} from '../crm/normalize-keys.js';
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

/** How a portal commonly spells a website whose host is `domain`. */
function websiteSpellings(domain: string): string[] {
  return ['', 'www.'].flatMap((www) =>
    ['', 'http://', 'https://'].map((scheme) => `${scheme}${www}${domain}`),
  );
}

/** A `fullName` value (`first\tlast`) as compared: both names normalized. */
function comparableName(first: string | null | undefined, last: string | null | undefined): string {
  return `${normalizeName(first ?? undefined)}\t${normalizeName(last ?? undefined)}`;
}

/** Where each searchable field lives in HubSpot, how it is spelled there, and how a held record compares. */
interface FieldSearch {
  readonly property: string;
  /** The other properties the answer must carry (a candidate's company, e-mail, domain). */
  readonly more: readonly string[];
  readonly spellings: (value: string) => string[];
  /** Spellings one value sends at most (the IN filter takes {@link SEARCH_VALUES}). */
  readonly perValue: number;
  /** A wanted value as compared. */
  readonly wanted: (value: string) => string | undefined;
  /** A found record's value as compared. */
  readonly held: (properties: Readonly<Record<string, string | null>>) => string | undefined;
}

const FIELDS: Record<SearchField, FieldSearch> = {
  domain: {
    property: 'domain',
    more: [],
    spellings: (domain) => [domain, `www.${domain}`],
    perValue: 2,
    wanted: (value) => value,
    held: (p) => normalizeDomain(p.domain ?? undefined),
  },
  website: {
    property: 'website',
    more: ['domain'],
    spellings: websiteSpellings,
    perValue: 6,
    wanted: (value) => value,
    held: (p) => normalizeDomain(p.website ?? undefined),
  },
  name: {
    property: 'name',
    more: ['domain'],
    spellings: (name) => [name],
    perValue: 1,
    wanted: (value) => normalizeName(value) || undefined,
    held: (p) => normalizeName(p.name ?? undefined) || undefined,
  },
  email: {
    property: 'email',
    more: [],
    spellings: (email) => [email],
    perValue: 1,
    wanted: (value) => value,
    held: (p) => normalizeEmail(p.email ?? undefined),
  },
  linkedinUrl: {
    property: LINKEDIN_PROPERTY,
    more: [],
    spellings: linkedinSpellings,
    perValue: 8,
    wanted: (value) => value,
    held: (p) => normalizeLinkedinUrl(p[LINKEDIN_PROPERTY] ?? undefined),
  },
  // By last name as the service spells it and without its accents; the first name compared after.
  fullName: {
    property: 'lastname',
    more: ['firstname', 'email', 'associatedcompanyid'],
    spellings: (value) => {
      const last = value.split('\t')[1] ?? '';
      const plain = last.normalize('NFKD').replace(/\p{M}/gu, '');
      return [...new Set([last, plain])];
    },
    perValue: 2,
    wanted: (value) => {
      const [first, last] = value.split('\t');
      return comparableName(first, last);
    },
    held: (p) => comparableName(p.firstname, p.lastname),
  },
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
  const search = FIELDS[field];
  const { property } = search;
  const found = new Map<string, SearchCandidate[]>();
  const perCall = Math.max(1, Math.floor(SEARCH_VALUES / search.perValue));
  const call = `POST /crm/v3/objects/${object}/search`;
  for (const chunk of chunksOf(values, perCall)) {
    // The values as compared → the values asked for.
    const wanted = new Map<string, string[]>();
    for (const value of chunk) {
      const as = search.wanted(value);
      if (as !== undefined) wanted.set(as, [...(wanted.get(as) ?? []), value]);
    }
    const spelled = [...new Set([...wanted.values()].flat().flatMap(search.spellings))];
    let after: string | undefined;
    let seen = 0;
    let more = false;
    do {
      const answer = await client.request(
        'POST',
        `/crm/v3/objects/${object}/search`,
        {
          filterGroups: [{ filters: [{ propertyName: property, operator: 'IN', values: spelled }] }],
          properties: [...new Set([property, keyProperty, ...search.more])],
          limit: SEARCH_PAGE,
          ...(after !== undefined ? { after } : {}),
        },
        signal,
      );
      const body = checkAnswer(searchSchema, answer, { crm: 'HubSpot', call });
      for (const record of body.results) {
        const asked = wanted.get(search.held(record.properties) ?? '\u0000');
        if (asked === undefined) continue;
        const p = record.properties;
        const candidate: SearchCandidate = {
          id: record.id,
          key: p[keyProperty]?.trim() || undefined,
          ...(p.associatedcompanyid ? { companyId: p.associatedcompanyid } : {}),
          ...(p.email ? { email: normalizeEmail(p.email) } : {}),
          ...(search.more.includes('domain') && p.domain ? { domain: normalizeDomain(p.domain) } : {}),
        };
        for (const value of asked) {
          const held = found.get(value);
          if (held === undefined) found.set(value, [candidate]);
          else if (!held.some((other) => other.id === record.id)) held.push(candidate);
        }
      }
      seen += body.results.length;
      after = body.paging?.next?.after;
      // HubSpot answers 400 past 10,000 results of one query: what lies beyond is not reachable by paging.
      more = after !== undefined && body.results.length > 0 && seen + SEARCH_PAGE <= SEARCH_RESULTS_LIMIT;
    } while (more);
  }
  return found;
}
