/**
 * Salesforce's tasks role (alerts-and-plays-api.md §5): the Contact's `OwnerId`, and a `Task` created with
 * `WhoId` (the contact), `OwnerId` (its owner), `ActivityDate` (the due day, `YYYY-MM-DD`, kept as a UTC
 * date), and the required picklists `Status` and `Priority` (Salesforce's defaults, `Not Started` and
 * `Normal`). No idempotency header: a task made before is found by SOQL (WhoId, OwnerId, Subject), then
 * by the marker in its `Description` (a long text area, which SOQL cannot filter on).
 */
import { z } from 'zod';
import type { CrmTasks, TaskRequest } from '../crm/crm-adapter.js';
import type { SalesforceClient } from './salesforce-client.js';
import { queryUri, soqlString } from './soql.js';

/** The Salesforce Id format: 15 or 18 letters and digits. */
const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;

const ownerSchema = z.looseObject({ OwnerId: z.string().nullable().optional() });
const createdSchema = z.looseObject({ id: z.string().min(1), success: z.literal(true) });
const querySchema = z.looseObject({
  records: z.array(z.looseObject({ Id: z.string(), Description: z.string().nullable().optional() })),
});

function checkedId(id: string, what: string): string {
  if (!SALESFORCE_ID.test(id)) throw new TypeError(`${what} "${id}" is not a Salesforce Id`);
  return id;
}

/** The tasks role over `client` (one that sends a POST once); `idKey` the destination's carried id key. */
export function createSalesforceTasks(client: SalesforceClient, idKey: string): CrmTasks {
  return {
    idKey,
    async ownerOf(contactId, signal) {
      const id = encodeURIComponent(checkedId(contactId, 'contact id'));
      const body = await client.json(
        ownerSchema,
        { method: 'GET', path: `sobjects/Contact/${id}?fields=OwnerId` },
        signal,
      );
      const owner = body.OwnerId?.trim();
      return owner === undefined || owner === '' ? undefined : owner;
    },
    async find(task: TaskRequest, signal) {
      const soql =
        `SELECT Id, Description FROM Task WHERE WhoId = ${soqlString(checkedId(task.contactId, 'contact id'))}` +
        ` AND OwnerId = ${soqlString(task.ownerId)} AND Subject = ${soqlString(task.subject)} ORDER BY Id LIMIT 200`;
      const body = await client.json(
        querySchema,
        { method: 'GET', path: queryUri(client.base, soql) },
        signal,
      );
      return body.records.find((record) => (record.Description ?? '').includes(task.marker))?.Id;
    },
    async create(task: TaskRequest, signal) {
      const body = await client.json(
        createdSchema,
        {
          method: 'POST',
          path: 'sobjects/Task',
          json: {
            Subject: task.subject,
            Description: task.body,
            WhoId: checkedId(task.contactId, 'contact id'),
            OwnerId: task.ownerId,
            ActivityDate: new Date(task.dueAtMs).toISOString().slice(0, 10),
            Status: 'Not Started',
            Priority: 'Normal',
          },
        },
        signal,
      );
      return body.id;
    },
  };
}
