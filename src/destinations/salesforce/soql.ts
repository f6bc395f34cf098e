/**
 * SOQL the destination sends: lookups by key (`SELECT Id, … FROM Contact WHERE Key IN ('…')`) cut into
 * chunks whose request URI stays under 2,000 characters (Salesforce's recommendation; the hard limit is
 * 16,384 for the URI and headers, shared/docs/salesforce-api.md §5), and reading every page of a result
 * through `nextRecordsUrl`.
 */
import { CrmError } from '../../errors.js';
import { type QueryPage, queryPageSchema } from './salesforce-answer.js';
import type { SalesforceClient } from './salesforce-client.js';

/** Characters a query's URI (path and query string) keeps under. */
export const MAX_QUERY_URI_CHARS = 2_000;

/** A SOQL string literal: quotes and backslashes escaped, as the SOQL reference asks. */
export function soqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/** A query string value as it goes on the wire: fetch's URL parser also encodes `'` in a query (WHATWG URL). */
export function encodeQueryValue(text: string): string {
  return encodeURIComponent(text).replace(/'/g, '%27');
}

/** The URI a query is sent with. */
export function queryUri(base: string, soql: string): string {
  return `${base}/query?q=${encodeQueryValue(soql)}`;
}

/** Names the SOQL grammar takes for objects and fields (`Account.Hooksync_Company_Id__c`). */
const NAME = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)?$/;

/**
 * `<head><item><separator><item>…<tail>` for every item, in as few queries as keep each URI (under `base`)
 * within `maxUriChars`; an item that cannot fit alone throws TypeError naming `what`.
 */
export function chunkedQueries(options: {
  readonly base: string;
  readonly head: string;
  readonly items: readonly string[];
  readonly separator: string;
  readonly tail: string;
  readonly what: string;
  readonly maxUriChars?: number;
}): string[] {
  const { head, separator, tail } = options;
  const max = options.maxUriChars ?? MAX_QUERY_URI_CHARS;
  const fixed = queryUri(options.base, `${head}${tail}`).length;
  const joint = encodeQueryValue(separator).length;
  const queries: string[] = [];
  let chunk: string[] = [];
  let length = fixed;
  for (const item of options.items) {
    const own = encodeQueryValue(item).length;
    if (fixed + own > max)
      throw new TypeError(`${options.what} cannot be looked up within ${max} characters of URI`);
    if (chunk.length > 0 && length + joint + own > max) {
      queries.push(`${head}${chunk.join(separator)}${tail}`);
      chunk = [];
      length = fixed;
    }
    length += (chunk.length > 0 ? joint : 0) + own;
    chunk.push(item);
  }
  if (chunk.length > 0) queries.push(`${head}${chunk.join(separator)}${tail}`);
  return queries;
}

function selectHead(object: string, fields: readonly string[]): string {
  for (const name of [object, ...fields])
    if (!NAME.test(name)) throw new TypeError(`not a SOQL name: ${name}`);
  return `SELECT ${fields.join(', ')} FROM ${object} WHERE `;
}

/**
 * `SELECT <fields> FROM <object> WHERE <keyField> IN (…)` for every key, in as few queries as keep each URI
 * (under `base`) within `maxUriChars`. Keys are deduplicated; a key that cannot fit alone throws TypeError.
 */
export function keyQueries(options: {
  readonly base: string;
  readonly object: string;
  readonly fields: readonly string[];
  readonly keyField: string;
  readonly keys: readonly string[];
  readonly maxUriChars?: number;
}): string[] {
  const fields = [...new Set(['Id', options.keyField, ...options.fields])];
  return chunkedQueries({
    base: options.base,
    head: `${selectHead(options.object, fields)}${options.keyField} IN (`,
    items: [...new Set(options.keys)].map(soqlString),
    separator: ', ',
    tail: ')',
    what: 'a key',
    ...(options.maxUriChars === undefined ? {} : { maxUriChars: options.maxUriChars }),
  });
}

/** A SOQL LIKE pattern matching `value` anywhere (its `%` and `_` escaped). */
export function containsPattern(value: string): string {
  return soqlString(`%${value.replace(/([%_\\])/g, '\\$1')}%`);
}

/**
 * `SELECT <fields> FROM <object> WHERE <field> LIKE '%v%' OR …` for every value (a domain typed into a
 * Website field in any of its spellings), in chunks that keep the URI within 2,000 characters.
 */
export function containsQueries(options: {
  readonly base: string;
  readonly object: string;
  readonly fields: readonly string[];
  readonly field: string;
  readonly values: readonly string[];
}): string[] {
  const fields = [...new Set(['Id', options.field, ...options.fields])];
  return chunkedQueries({
    base: options.base,
    head: selectHead(options.object, fields),
    items: [...new Set(options.values)].map((value) => `${options.field} LIKE ${containsPattern(value)}`),
    separator: ' OR ',
    tail: '',
    what: 'a value',
  });
}

/** Records of one query page at most (Salesforce's largest batch, §3). */
export const QUERY_PAGE_RECORDS = 2_000;
/** Records `queryAll` reads at most unless told (a lookup of values that are not unique). */
export const DEFAULT_MAX_QUERY_RECORDS = 50_000;

/**
 * Every record a query finds, following `nextRecordsUrl` page by page, `maxRecords` at most (issue 43: a
 * lookup of N unique keys finds N records at most; an org that pages on past it is refused, not followed).
 */
export async function queryAll(
  client: SalesforceClient,
  soql: string,
  signal: AbortSignal,
  maxRecords = DEFAULT_MAX_QUERY_RECORDS,
): Promise<Array<Record<string, unknown>>> {
  const records: Array<Record<string, unknown>> = [];
  let path: string | undefined = `query?q=${encodeQueryValue(soql)}`;
  while (path !== undefined) {
    const page: QueryPage = await client.json(
      queryPageSchema,
      { method: 'GET', path, maxItems: QUERY_PAGE_RECORDS },
      signal,
    );
    records.push(...page.records);
    if (records.length > maxRecords) {
      throw new CrmError(200, {
        kind: 'retry',
        error: `Salesforce answered a query with more than the ${maxRecords} records it can find`,
      });
    }
    path = page.done ? undefined : page.nextRecordsUrl;
  }
  return records;
}
