/**
 * `POST /crm/v3/objects/{type}/search` (shared/docs/hubspot-api.md §2): filter groups are ORed, the filters of a
 * group ANDed; at most 5 groups, 10 filters a group, 25 in all; pages of up to 200 and 10,000 results a query.
 * String comparisons ignore case. With an index lag, search sees each record as it was `lag` ago (§2).
 */

import { type Answer, DEFAULT_READ_PROPERTIES, type HandlerContext, recordBody } from './batch-input.js';
import { hubSpotError } from './errors.js';
import type { CrmObjectType } from './properties.js';

const MAX_GROUPS = 5;
const MAX_FILTERS_PER_GROUP = 10;
const MAX_FILTERS = 25;
const MAX_LIMIT = 200;
const MAX_RESULTS = 10_000;
const DEFAULT_LIMIT = 10;

interface Filter {
  propertyName: string;
  operator: string;
  value?: unknown;
  highValue?: unknown;
  values?: unknown[];
}

const OPERATORS = new Set([
  'EQ',
  'NEQ',
  'LT',
  'LTE',
  'GT',
  'GTE',
  'BETWEEN',
  'IN',
  'NOT_IN',
  'HAS_PROPERTY',
  'NOT_HAS_PROPERTY',
  'CONTAINS_TOKEN',
  'NOT_CONTAINS_TOKEN',
]);

const bad = (message: string): Answer => ({ status: 400, body: hubSpotError(message, 'VALIDATION_ERROR') });

/** Compares as numbers when both are numbers, as instants when both are dates, else as lower-case text. */
function compare(held: string, wanted: string): number {
  const [a, b] = [Number(held), Number(wanted)];
  if (held.trim() !== '' && wanted.trim() !== '' && !Number.isNaN(a) && !Number.isNaN(b)) return a - b;
  const [x, y] = [Date.parse(held), Date.parse(wanted)];
  if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  return held.toLowerCase().localeCompare(wanted.toLowerCase());
}

function matches(values: Record<string, string>, filter: Filter): boolean {
  const held = values[filter.propertyName];
  const wanted = filter.value === undefined ? '' : String(filter.value);
  const list = (filter.values ?? []).map(String);
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return held !== undefined;
    case 'NOT_HAS_PROPERTY':
      return held === undefined;
    case 'EQ':
      return held !== undefined && compare(held, wanted) === 0;
    case 'NEQ':
      return held === undefined || compare(held, wanted) !== 0;
    case 'IN':
      return held !== undefined && list.some((item) => compare(held, item) === 0);
    case 'NOT_IN':
      return held === undefined || !list.some((item) => compare(held, item) === 0);
    case 'LT':
      return held !== undefined && compare(held, wanted) < 0;
    case 'LTE':
      return held !== undefined && compare(held, wanted) <= 0;
    case 'GT':
      return held !== undefined && compare(held, wanted) > 0;
    case 'GTE':
      return held !== undefined && compare(held, wanted) >= 0;
    case 'BETWEEN':
      return (
        held !== undefined && compare(held, wanted) >= 0 && compare(held, String(filter.highValue ?? '')) <= 0
      );
    default: {
      // CONTAINS_TOKEN / NOT_CONTAINS_TOKEN: a word of the value, `*` as a wildcard.
      const token = wanted.toLowerCase().replaceAll('*', '');
      const words = (held ?? '').toLowerCase().split(/[^\p{L}\p{N}@.]+/u);
      const found = words.some((word) => (wanted.includes('*') ? word.includes(token) : word === token));
      return filter.operator === 'CONTAINS_TOKEN' ? found : !found;
    }
  }
}

/** Validates the body's filter groups: the groups, or the 400 of the 2024-08 limits. */
function filterGroups(raw: unknown): { groups: Filter[][] } | { error: Answer } {
  if (raw === undefined) return { groups: [] };
  if (!Array.isArray(raw)) return { error: bad('filterGroups must be an array') };
  if (raw.length > MAX_GROUPS) {
    return { error: bad(`Too many filter groups: ${raw.length}. The maximum is ${MAX_GROUPS}.`) };
  }
  const groups: Filter[][] = [];
  for (const group of raw as Array<{ filters?: unknown }>) {
    const filters = Array.isArray(group?.filters) ? (group.filters as Filter[]) : [];
    if (filters.length > MAX_FILTERS_PER_GROUP) {
      return {
        error: bad(
          `Too many filters in a group: ${filters.length}. The maximum is ${MAX_FILTERS_PER_GROUP}.`,
        ),
      };
    }
    for (const filter of filters) {
      if (typeof filter?.propertyName !== 'string' || !OPERATORS.has(filter.operator)) {
        return { error: bad(`Invalid filter: ${JSON.stringify(filter)}`) };
      }
    }
    groups.push(filters);
  }
  const total = groups.reduce((sum, group) => sum + group.length, 0);
  if (total > MAX_FILTERS)
    return { error: bad(`Too many filters: ${total}. The maximum is ${MAX_FILTERS}.`) };
  return { groups };
}

/** The search answer: `{total, results, paging?}`. */
export function searchObjects(ctx: HandlerContext, type: CrmObjectType, body: unknown): Answer {
  const raw = (body ?? {}) as Record<string, unknown>;
  const parsed = filterGroups(raw.filterGroups);
  if ('error' in parsed) return parsed.error;
  const limit = raw.limit === undefined ? DEFAULT_LIMIT : Number(raw.limit);
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
    return bad(`limit must be between 0 and ${MAX_LIMIT}`);
  }
  const after = raw.after === undefined || raw.after === '' ? 0 : Number(raw.after);
  if (!Number.isInteger(after) || after < 0) return bad('after must be a paging cursor');
  if (after + limit > MAX_RESULTS) return bad(`Search returns at most ${MAX_RESULTS} results for a query`);
  const nowMs = ctx.now();
  const names = Array.isArray(raw.properties)
    ? raw.properties.filter((name): name is string => typeof name === 'string')
    : [...DEFAULT_READ_PROPERTIES[type]];
  const hits = ctx.store.all(type).flatMap((record) => {
    const values = ctx.store.indexedValues(record, nowMs);
    if (values === undefined) return [];
    const hit =
      parsed.groups.length === 0 || parsed.groups.some((group) => group.every((f) => matches(values, f)));
    return hit ? [{ record, values }] : [];
  });
  const sort = Array.isArray(raw.sorts) ? (raw.sorts[0] as unknown) : undefined;
  const sortBy =
    typeof sort === 'string' ? sort.replace(/^-/, '') : (sort as { propertyName?: string })?.propertyName;
  const descending =
    (typeof sort === 'string' && sort.startsWith('-')) ||
    (sort as { direction?: string })?.direction === 'DESCENDING';
  hits.sort((a, b) => {
    const order = sortBy
      ? compare(a.values[sortBy] ?? '', b.values[sortBy] ?? '')
      : Number(a.record.id) - Number(b.record.id);
    return descending ? -order : order;
  });
  const page = hits.slice(after, after + limit);
  const results = page.map(({ record, values }) => {
    const shaped = recordBody(ctx.store, record, names);
    // Search answers what its index holds, which may lag behind the record.
    const properties: Record<string, string> = {};
    for (const name of Object.keys(shaped.properties as Record<string, string>)) {
      const value = values[name];
      if (value !== undefined) properties[name] = value;
    }
    return { ...shaped, properties };
  });
  const next = after + limit;
  return {
    status: 200,
    body: {
      total: hits.length,
      results,
      ...(next < hits.length && limit > 0 ? { paging: { next: { after: String(next) } } } : {}),
    },
  };
}
