/**
 * Salesforce's owner role (alerts' `"to": "owner"`; shared/docs/alerts-and-plays-api.md §5.1): the e-mail of
 * a watched person's owner, in one relationship query on the record the watch carried by its Id (`sf_id`, or
 * the key `id_field` names): `SELECT OwnerId, Owner.Email, Owner.IsActive FROM Contact WHERE Id = '003…'`,
 * or `FROM Lead` for a Lead's Id (`00Q…`). Only an active User owns: a Lead held by a queue (`00G…`, whose
 * `Owner.Email` is the queue's) or a deactivated user has no owner here, and the alert's fallback takes it.
 */
import { z } from 'zod';
import type { SalesforceClient } from './salesforce-client.js';
import { queryUri, soqlString } from './soql.js';

/** The Salesforce Id format: 15 or 18 letters and digits. */
const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;
/** The key prefixes of the objects a person is held as, and of a User. */
const OBJECT_OF_PREFIX: Readonly<Record<string, 'Contact' | 'Lead'>> = { '003': 'Contact', '00Q': 'Lead' };
const USER_PREFIX = '005';

const answerSchema = z.looseObject({
  records: z
    .array(
      z.looseObject({
        OwnerId: z.string().nullish(),
        Owner: z.looseObject({ Email: z.string().nullish(), IsActive: z.boolean().nullish() }).nullish(),
      }),
    )
    .max(1),
});

/** The owner's e-mail of the Contact or Lead whose Id the watch carried in `fields[idKey]`; undefined when none. */
export async function salesforceOwnerEmail(
  client: SalesforceClient,
  idKey: string,
  fields: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<string | undefined> {
  const id = fields[idKey]?.trim();
  if (id === undefined || !SALESFORCE_ID.test(id)) return undefined;
  const object = OBJECT_OF_PREFIX[id.slice(0, 3)];
  if (object === undefined) return undefined;
  const soql = `SELECT OwnerId, Owner.Email, Owner.IsActive FROM ${object} WHERE Id = ${soqlString(id)} LIMIT 1`;
  const body = await client.json(answerSchema, { method: 'GET', path: queryUri(client.base, soql) }, signal);
  const [record] = body.records;
  if (record === undefined || record.OwnerId?.startsWith(USER_PREFIX) !== true) return undefined;
  if (record.Owner?.IsActive === false) return undefined;
  const email = record.Owner?.Email?.trim();
  return email === undefined || email === '' ? undefined : email;
}
