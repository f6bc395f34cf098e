/**
 * HubSpot's owner role (crm-adapter.ts `ownerEmail`): the e-mail of a watched contact's owner. The owner's
 * id is the carried `hubspot_owner_id` (a watch's `"carry": { "hubspot_owner_id": "hubspot_owner_id" }`),
 * else the contact's own property, read by its carried `hs_object_id`; then `GET /crm/v3/owners/{id}`
 * (the owner `id`, not its `userId`), and again with `archived=true` for a deactivated user's owner.
 */
import { z } from 'zod';
import { checkAnswer } from '../crm/check-answer.js';
import { unlessMissing } from '../crm/unless-missing.js';
import type { HubSpotClient } from './hubspot-client.js';

const contactSchema = z.object({
  properties: z.record(z.string(), z.string().nullable()).default({}),
});
const ownerSchema = z.object({ id: z.union([z.string(), z.number()]), email: z.string().nullish() });

const DIGITS = /^\d{1,20}$/;

/** The owner's e-mail of the contact a watch carried `fields` of; undefined when it has none. */
export async function hubspotOwnerEmail(
  client: HubSpotClient,
  fields: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<string | undefined> {
  let ownerId = fields.hubspot_owner_id?.trim();
  const contactId = fields.hs_object_id?.trim();
  if ((ownerId === undefined || ownerId === '') && contactId !== undefined && DIGITS.test(contactId)) {
    const call = `GET /crm/v3/objects/contacts/${contactId}`;
    const contact = await unlessMissing(() =>
      client.request(
        'GET',
        `/crm/v3/objects/contacts/${contactId}?properties=hubspot_owner_id`,
        undefined,
        signal,
      ),
    );
    if (contact !== undefined) {
      ownerId =
        checkAnswer(contactSchema, contact, { crm: 'HubSpot', call }).properties.hubspot_owner_id ?? '';
    }
  }
  if (ownerId === undefined || !DIGITS.test(ownerId)) return undefined;
  for (const archived of [false, true]) {
    const path = `/crm/v3/owners/${ownerId}?idProperty=id${archived ? '&archived=true' : ''}`;
    const answer = await unlessMissing(() => client.request('GET', path, undefined, signal));
    if (answer === undefined) continue;
    const owner = checkAnswer(ownerSchema, answer, { crm: 'HubSpot', call: 'GET /crm/v3/owners/{id}' });
    const email = owner.email?.trim();
    return email === undefined || email === '' ? undefined : email;
  }
  return undefined;
}
