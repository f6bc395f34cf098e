/**
 * HubSpot's tasks role (alerts-and-plays-api.md §4): the contact's owner read from `hubspot_owner_id`, a
 * task of the `tasks` object created with `hs_timestamp` (required: its due time), `hubspot_owner_id` and
 * the association to the contact (HUBSPOT_DEFINED 204) in the same call. HubSpot has no idempotency key:
 * a task made before is found by search (owner EQ, subject EQ), then by the marker in its body.
 */
import { z } from 'zod';
import { checkAnswer } from '../crm/check-answer.js';
import type { CrmTasks, TaskRequest } from '../crm/crm-adapter.js';
import type { HubSpotClient } from './hubspot-client.js';

/** task → contact (HUBSPOT_DEFINED). */
export const TASK_TO_CONTACT = 204;
/** The id a watch carries for a HubSpot contact (the CRM source's own key). */
export const HUBSPOT_CONTACT_ID_KEY = 'hs_object_id';

const id = z.union([z.string(), z.number()]).transform(String);
const recordSchema = z.object({
  id,
  properties: z.record(z.string(), z.string().nullable()).default({}),
});
const searchSchema = z.object({ results: z.array(recordSchema).default([]) });

/** The tasks role over `client` (a client that sends a POST once: a create is never repeated in one call). */
export function createHubSpotTasks(client: HubSpotClient): CrmTasks {
  const what = (call: string) => ({ crm: 'HubSpot', call });
  return {
    idKey: HUBSPOT_CONTACT_ID_KEY,
    async ownerOf(contactId, signal) {
      const path = `/crm/v3/objects/contacts/${encodeURIComponent(contactId)}?properties=hubspot_owner_id`;
      const answer = await client.request('GET', path, undefined, signal);
      const owner = checkAnswer(recordSchema, answer, what('GET /crm/v3/objects/contacts/{id}')).properties
        .hubspot_owner_id;
      return owner === undefined || owner === null || owner.trim() === '' ? undefined : owner.trim();
    },
    async find(task: TaskRequest, signal) {
      const body = {
        filterGroups: [
          {
            filters: [
              { propertyName: 'hubspot_owner_id', operator: 'EQ', value: task.ownerId },
              { propertyName: 'hs_task_subject', operator: 'EQ', value: task.subject },
            ],
          },
        ],
        properties: ['hs_task_subject', 'hs_task_body'],
        limit: 100,
      };
      const answer = await client.request('POST', '/crm/v3/objects/tasks/search', body, signal);
      const found = checkAnswer(searchSchema, answer, what('POST /crm/v3/objects/tasks/search')).results;
      return found.find((record) => (record.properties.hs_task_body ?? '').includes(task.marker))?.id;
    },
    async create(task: TaskRequest, signal) {
      const body = {
        properties: {
          hs_timestamp: new Date(task.dueAtMs).toISOString(),
          hs_task_subject: task.subject,
          hs_task_body: task.body,
          hubspot_owner_id: task.ownerId,
          hs_task_status: 'NOT_STARTED',
          hs_task_priority: 'MEDIUM',
          hs_task_type: 'TODO',
        },
        associations: [
          {
            to: { id: task.contactId },
            types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: TASK_TO_CONTACT }],
          },
        ],
      };
      const answer = await client.request('POST', '/crm/v3/objects/tasks', body, signal);
      return checkAnswer(recordSchema, answer, what('POST /crm/v3/objects/tasks')).id;
    },
  };
}
