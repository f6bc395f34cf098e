/**
 * Pipedrive's tasks role (alerts-and-plays-api.md §6): the person's `owner_id` (`GET /api/v2/persons/{id}`),
 * and an activity of type `task` made through API v2 (`POST /api/v2/activities`: `person_id`, the owner as
 * `owner_id`, not v1's `user_id`, `due_date` as `YYYY-MM-DD`, the body as `note`). No idempotency key: an
 * activity made before is found among the person's open activities of that owner, by subject and the
 * marker in its note.
 */
import { z } from 'zod';
import { checkAnswer } from '../crm/check-answer.js';
import type { CrmTasks, TaskRequest } from '../crm/crm-adapter.js';
import type { CrmHttp } from '../crm/crm-http.js';

/** The id a watch carries for a Pipedrive person (the templates' `Pipedrive ID`). */
export const PIPEDRIVE_PERSON_ID_KEY = 'pd_id';
/** The activity type of a follow-up task (an ActivityType's key_string). */
export const TASK_ACTIVITY_TYPE = 'task';

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(Number);
const personSchema = z.looseObject({
  success: z.literal(true),
  data: z.looseObject({ owner_id: id.nullable().optional() }),
});
const activitiesSchema = z.looseObject({
  success: z.literal(true),
  data: z
    .array(
      z.looseObject({
        id,
        subject: z.string().nullable().optional(),
        note: z.string().nullable().optional(),
      }),
    )
    .nullable()
    .default([]),
});
const createdSchema = z.looseObject({ success: z.literal(true), data: z.looseObject({ id }) });

function numeric(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new TypeError(`${what} "${value}" is not a Pipedrive id`);
  return Number(value);
}

/** The tasks role over `client` (Pipedrive's client sends each POST once). */
export function createPipedriveTasks(client: CrmHttp): CrmTasks {
  const what = (call: string) => ({ crm: 'Pipedrive', call });
  return {
    idKey: PIPEDRIVE_PERSON_ID_KEY,
    async ownerOf(contactId, signal) {
      const path = `/api/v2/persons/${numeric(contactId, 'person id')}`;
      const answer = await client.request('GET', path, undefined, signal);
      const owner = checkAnswer(personSchema, answer, what('GET /api/v2/persons/{id}')).data.owner_id;
      return owner === null || owner === undefined ? undefined : String(owner);
    },
    async find(task: TaskRequest, signal) {
      const query = new URLSearchParams({
        person_id: String(numeric(task.contactId, 'person id')),
        owner_id: String(numeric(task.ownerId, 'owner id')),
        done: 'false',
        limit: '100',
      });
      const answer = await client.request('GET', `/api/v2/activities?${query}`, undefined, signal);
      const found = checkAnswer(activitiesSchema, answer, what('GET /api/v2/activities')).data ?? [];
      const match = found.find(
        (activity) => activity.subject === task.subject && (activity.note ?? '').includes(task.marker),
      );
      return match === undefined ? undefined : String(match.id);
    },
    async create(task: TaskRequest, signal) {
      const body = {
        subject: task.subject,
        type: TASK_ACTIVITY_TYPE,
        owner_id: numeric(task.ownerId, 'owner id'),
        person_id: numeric(task.contactId, 'person id'),
        due_date: new Date(task.dueAtMs).toISOString().slice(0, 10),
        note: task.body,
        done: false,
      };
      const answer = await client.request('POST', '/api/v2/activities', body, signal);
      return String(checkAnswer(createdSchema, answer, what('POST /api/v2/activities')).data.id);
    },
  };
}
