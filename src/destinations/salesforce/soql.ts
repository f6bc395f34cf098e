/**
 * SOQL the destination sends: lookups by key (`SELECT Id, … FROM Contact WHERE Key IN ('…')`) cut into
 * chunks whose request URI stays under 2,000 characters (Salesforce's recommendation; the hard limit is
 * 16,384 for the URI and headers, shared/docs/salesforce-api.md §5), and reading every page of a result
 * through `nextRecordsUrl`.
 */
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
  const { base, object, keyField } = options;
  const max = options.maxUriChars ?? MAX_QUERY_URI_CHARS;
  const fields = [...new Set(['Id', keyField, ...options.fields])];
  for (const name of [object, ...fields])
    if (!NAME.test(name)) throw new TypeError(`not a SOQL name: ${name}`);
  const head = `SELECT ${fields.join(', ')} FROM ${object} WHERE ${keyField} IN (`;
  const fixed = queryUri(base, `${head})`).length;
  const queries: string[] = [];
  let chunk: string[] = [];
  let length = fixed;
  for (const key of new Set(options.keys)) {
    const literal = soqlString(key);
    // encodeURIComponent of ", " before every literal after the first.
    const cost = encodeQueryValue(literal).length + (chunk.length > 0 ? encodeQueryValue(', ').length : 0);
    if (chunk.length > 0 && length + cost > max) {
      queries.push(`${head}${chunk.join(', ')})`);
      chunk = [];
      length = fixed;
    }
    const own = encodeQueryValue(literal).length;
    if (fixed + own > max)
      throw new TypeError(
        `a key of ${key.length} characters cannot be looked up within ${max} characters of URI`,
      );
    chunk.push(literal);
    length += chunk.length === 1 ? own : cost;
  }
  if (chunk.length > 0) queries.push(`${head}${chunk.join(', ')})`);
  return queries;
}

/** Every record a query finds, following `nextRecordsUrl` page by page. */
export async function queryAll(
  client: SalesforceClient,
  soql: string,
  signal: AbortSignal,
): Promise<Array<Record<string, unknown>>> {
  const records: Array<Record<string, unknown>> = [];
  let path: string | undefined = `query?q=${encodeQueryValue(soql)}`;
  while (path !== undefined) {
    const page: QueryPage = await client.json(queryPageSchema, { method: 'GET', path }, signal);
    records.push(...page.records);
    path = page.done ? undefined : page.nextRecordsUrl;
  }
  return records;
}
