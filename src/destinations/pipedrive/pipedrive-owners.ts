/**
 * Pipedrive's owner role (alerts' `"to": "owner"`; shared/docs/alerts-and-plays-api.md §6.1): the e-mail of a
 * watched person's owner. The person is the one the watch carried (`pd_id`, the templates' `Pipedrive ID`):
 * `GET /api/v2/persons/{id}` (1 token) gives its `owner_id`, an integer; then `GET /api/v1/users/{id}` (2
 * tokens; there is no v2 users endpoint) gives the user's `email`. A deactivated user (`active_flag` false)
 * owns nothing here: the alert's fallback takes the change. Users are kept for an hour, so persons of one
 * owner read the user once.
 */
import { z } from 'zod';
import { checkAnswer } from '../crm/check-answer.js';
import type { CrmHttp } from '../crm/crm-http.js';
import { unlessMissing } from '../crm/unless-missing.js';
import type { OwnerLookup } from '../destination-type.js';
import { PIPEDRIVE_PERSON_ID_KEY } from './pipedrive-tasks.js';

/** How long a user's e-mail is kept. */
export const USER_CACHE_MS = 3_600_000;
/** Users kept at most (the oldest forgotten first). */
const USER_CACHE_SIZE = 1_000;

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(Number);
const personSchema = z.looseObject({
  success: z.literal(true),
  data: z.looseObject({ owner_id: id.nullish() }),
});
const userSchema = z.looseObject({
  success: z.literal(true),
  data: z.looseObject({
    email: z.string().nullish(),
    active_flag: z.boolean().nullish(),
    is_deleted: z.boolean().nullish(),
  }),
});

/** The owner lookup over `client` (a client of the destination's own, on its shared pace). */
export function createPipedriveOwners(client: CrmHttp, now: () => number): OwnerLookup {
  const what = (call: string) => ({ crm: 'Pipedrive', call });
  const users = new Map<number, { readonly at: number; readonly email: Promise<string | undefined> }>();
  const userEmail = async (userId: number, signal: AbortSignal): Promise<string | undefined> => {
    const answer = await unlessMissing(() =>
      client.request('GET', `/api/v1/users/${userId}`, undefined, signal),
    );
    if (answer === undefined) return undefined;
    const user = checkAnswer(userSchema, answer, what('GET /api/v1/users/{id}')).data;
    if (user.active_flag === false || user.is_deleted === true) return undefined;
    const email = user.email?.trim();
    return email === undefined || email === '' ? undefined : email;
  };
  return async (fields, signal) => {
    const personId = fields[PIPEDRIVE_PERSON_ID_KEY]?.trim();
    if (personId === undefined || !/^\d{1,15}$/.test(personId)) return undefined;
    const answer = await unlessMissing(() =>
      client.request('GET', `/api/v2/persons/${Number(personId)}`, undefined, signal),
    );
    if (answer === undefined) return undefined;
    const ownerId = checkAnswer(personSchema, answer, what('GET /api/v2/persons/{id}')).data.owner_id;
    if (ownerId === null || ownerId === undefined) return undefined;
    let held = users.get(ownerId);
    if (held === undefined || now() - held.at >= USER_CACHE_MS) {
      held = { at: now(), email: userEmail(ownerId, signal) };
      users.delete(ownerId);
      users.set(ownerId, held);
      if (users.size > USER_CACHE_SIZE) users.delete(users.keys().next().value!);
    }
    try {
      return await held.email;
    } catch (error) {
      // Trouble is not an answer: the next person of this owner asks again.
      if (users.get(ownerId) === held) users.delete(ownerId);
      throw error;
    }
  };
}
