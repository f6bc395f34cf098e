/**
 * An org's Contacts as a watch reads them (`from.salesforce`, docs/watches.md), through the destination's
 * client (its grant, renewed once on 401; every answer under the size cap and checked with zod; the org's
 * allocation read from each answer and kept within `max_share`; retries on Salesforce's policy). The watch's
 * `soql_where` is the user's own WHERE clause in their own org, put in parentheses. Pages: the query is cut
 * into chunks keyed on `Id` (`… AND Id > 'last' ORDER BY Id LIMIT 2000`), each chunk's pages read at once
 * through `nextRecordsUrl`: a query locator expires after minutes of inactivity, and a cycle spread over its
 * period reads its source over days. One chunk (2,000 contacts at most) is all that is held at once.
 */

import { z } from 'zod';
import { CrmError } from '../../errors.js';
import { normalizeDomain } from '../crm/normalize-keys.js';
import type { ContactReader, ContactReaderDeps, ContactRow, WatchSourceType } from '../destination-type.js';
import { type QueryPage, queryPageSchema } from './salesforce-answer.js';
import type { SalesforceClient } from './salesforce-client.js';
import { encodeQueryValue, soqlString } from './soql.js';
import { soqlWhereProblem } from './soql-where.js';

/** Contacts per chunk: a query page's largest size. */
export const CONTACTS_CHUNK = 2_000;
/** A call of the reader gives up after this long (then the cycle stops, naming the org's problem). */
export const READ_TIMEOUT_MS = 60_000;
/** Field names a watch's map and carry may read: a Contact field or one parent's (`Account.Name`). */
export const SOQL_FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)?$/;

/** A watch's `from.salesforce`: the destination, and the user's own WHERE clause. */
const salesforceSourceSchema = z.strictObject({
  destination: z.string().min(1),
  soql_where: z
    .string()
    .trim()
    .min(1)
    .transform((text, ctx) => {
      const problem = soqlWhereProblem(text);
      if (problem !== undefined) {
        ctx.issues.push({ code: 'custom', input: text, message: problem });
        return z.NEVER;
      }
      return text;
    }),
});

/** A watch's `from.salesforce`, validated. */
export type SalesforceSourceQuery = z.output<typeof salesforceSourceSchema>;

/** Salesforce as a watch source: its `from.salesforce` and its field names (the reader is the destination's). */
export const SALESFORCE_SOURCE: WatchSourceType<SalesforceSourceQuery> = {
  crm: 'Salesforce',
  schema: salesforceSourceSchema,
  fieldName: SOQL_FIELD_NAME,
  fieldNoun: 'Salesforce Contact field',
};

/** A read that cannot end: the cycle stops (`stopped: source`) naming why. */
function pagingError(what: string): CrmError {
  return new CrmError(200, { kind: 'fail', error: `Salesforce answered ${what}; the reading stops` });
}

/** What the reader reads besides the watch's own fields. */
export interface ContactFields {
  /** The Account's key field (`Hooksync_Company_Id__c`): the normalized domain, when set. */
  readonly accountKey: string;
  /** The Contact's LinkedIn field when the destination's mapping writes one. */
  readonly linkedin: string | undefined;
}

/** A field's value in a query record, `Account.Website` following the parent. */
function valueAt(record: Readonly<Record<string, unknown>>, path: string): string | undefined {
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    const holder = value as Record<string, unknown>;
    const key = Object.keys(holder).find((name) => name.toLowerCase() === part.toLowerCase());
    value = key === undefined ? undefined : holder[key];
  }
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The reader, each reading through a client (and so a session) `clientFor` makes. */
export function createSalesforceContactReader(
  clientFor: (deps: ContactReaderDeps) => SalesforceClient,
  fields: ContactFields,
): ContactReader<SalesforceSourceQuery> {
  return {
    idKey: 'sf_id',
    columns: { email: 'Email', linkedin: fields.linkedin, firstName: 'FirstName', lastName: 'LastName' },
    async *contacts(query, queryFields, deps) {
      const client = clientFor(deps);
      const read = (path: string): Promise<QueryPage> =>
        client.json(
          queryPageSchema,
          { method: 'GET', path, maxItems: CONTACTS_CHUNK },
          AbortSignal.timeout(READ_TIMEOUT_MS),
        );
      const own = ['Email', 'FirstName', 'LastName', 'Account.Website', `Account.${fields.accountKey}`];
      if (fields.linkedin !== undefined) own.push(fields.linkedin);
      const asked = ['Id', ...own, ...queryFields];
      // SOQL refuses a field selected twice, whatever its case; each spelling asked still gets its cell.
      const wanted = asked.filter(
        (name, at) => asked.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === at,
      );
      const where = query.soql_where.trim();
      let lastId: string | undefined;
      for (;;) {
        const conditions = [
          ...(where ? [`(${where})`] : []),
          ...(lastId !== undefined ? [`Id > ${soqlString(lastId)}`] : []),
        ];
        const soql = `SELECT ${wanted.join(', ')} FROM Contact${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY Id LIMIT ${CONTACTS_CHUNK}`;
        const records: Array<Record<string, unknown>> = [];
        let path: string | undefined = `query?q=${encodeQueryValue(soql)}`;
        while (path !== undefined) {
          const page = await read(path);
          records.push(...page.records);
          // The query asked for a chunk at most (LIMIT): an org paging on past it is refused, not followed.
          if (records.length > CONTACTS_CHUNK)
            throw pagingError(`more than the ${CONTACTS_CHUNK} contacts of a LIMIT ${CONTACTS_CHUNK} query`);
          path = page.done ? undefined : page.nextRecordsUrl;
        }
        const rows: ContactRow[] = [];
        for (const record of records) {
          const id = valueAt(record, 'Id');
          if (id === undefined) continue;
          const cells: Record<string, string> = {};
          for (const name of asked) {
            const value = valueAt(record, name);
            if (value !== undefined) cells[name] = value;
          }
          const domain =
            normalizeDomain(valueAt(record, `Account.${fields.accountKey}`)) ??
            normalizeDomain(valueAt(record, 'Account.Website'));
          if (domain !== undefined) cells.company_domain = domain;
          rows.push({ id, cells });
        }
        yield* rows;
        if (records.length < CONTACTS_CHUNK) return;
        const previous = lastId;
        lastId = valueAt(records.at(-1)!, 'Id');
        if (lastId === undefined) return;
        // Chunks are keyed on Id ascending: one that does not move on would be read again forever.
        if (previous !== undefined && lastId <= previous)
          throw pagingError(`a chunk that does not move past Id ${previous}`);
      }
    },
  };
}
