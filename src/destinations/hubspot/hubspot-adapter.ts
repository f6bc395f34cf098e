/**
 * HubSpot as the CRM core sees it (`crm/crm-adapter.ts`): batch read and batch upsert by a unique property
 * (100 per call), contacts linked to their company by v4 associations (a call of its own), property
 * definitions, and a check of the token's read scopes. Every answer's shape is checked before use.
 *
 * Upsert answers are matched by what was sent: an `objectWriteTraceId` per input; where an answer carries
 * none (HubSpot allows no partial result for e-mail keys), by the key when the answer echoes it, else by the
 * record's id read back by key. A record missing from an answer is read back before it is called failed.
 */
import { z } from 'zod';
import { CrmError } from '../../errors.js';
import { checkAnswer } from '../crm/check-answer.js';
import type { FieldDefinition } from '../crm/check-values.js';
import type { CrmAdapter, CrmObject, HeldRecord, WriteRequest, WriteResult } from '../crm/crm-adapter.js';
import type { CrmAnswer } from '../crm/crm-http.js';
import { HUBSPOT_BATCH_LIMIT, type HubSpotClient } from './hubspot-client.js';
import { hubspotOwnerEmail } from './hubspot-owners.js';
import { searchHubSpot } from './hubspot-search.js';
import { createHubSpotTasks } from './hubspot-tasks.js';

/** contact→company association types (HubSpot-defined): unlabeled, and primary for a moved contact. */
export const CONTACT_TO_COMPANY = 279;
export const CONTACT_TO_PRIMARY_COMPANY = 1;

const id = z.union([z.string(), z.number()]).transform(String);
const properties = z.record(z.string(), z.string().nullable()).default({});
const recordSchema = z.object({ id, properties });
const batchSchema = z.object({
  results: z
    .array(recordSchema.extend({ new: z.boolean().optional(), objectWriteTraceId: z.string().optional() }))
    .default([]),
  errors: z
    .array(
      z.object({
        message: z.string().optional(),
        context: z.record(z.string(), z.array(z.string())).optional(),
      }),
    )
    .default([]),
});
const associationSchema = z.object({
  results: z.array(z.object({ fromObjectId: id, toObjectId: id })).default([]),
  errors: z.array(z.object({ message: z.string().optional() })).default([]),
});
const definitionsSchema = z.object({
  results: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      options: z.array(z.object({ value: z.string() })).optional(),
      hasUniqueValue: z.boolean().optional(),
    }),
  ),
});

/** HubSpot compares e-mails and our normalized keys case-insensitively. */
const sameKey = (a: string | null | undefined, b: string) => (a ?? '').trim().toLowerCase() === b;

/** The property definitions of `object`, as the answer holds them. */
export function readDefinitions(answer: CrmAnswer, call: string): Map<string, FieldDefinition> {
  const body = checkAnswer(definitionsSchema, answer, { crm: 'HubSpot', call });
  return new Map(body.results.map((definition) => [definition.name, definition]));
}

/** Which requested key a read or written record answers: its key property, or (contacts) an additional e-mail. */
function keyOf(record: HeldRecord, idProperty: string, keys: readonly string[]): string | undefined {
  const direct = keys.find((key) => sameKey(record.properties[idProperty], key));
  if (direct !== undefined || idProperty !== 'email') return direct;
  const more = (record.properties.hs_additional_emails ?? '').split(';');
  return keys.find((key) => more.some((other) => sameKey(other, key)));
}

/** Creates the adapter over `client`. */
export function createHubSpotAdapter(client: HubSpotClient): CrmAdapter {
  const read: CrmAdapter['read'] = async (object, idProperty, keys, wanted, signal) => {
    if (keys.length === 0) return new Map();
    const call = `POST /crm/v3/objects/${object}/batch/read`;
    const extra = object === 'contacts' && idProperty === 'email' ? ['hs_additional_emails'] : [];
    const answer = await client.request(
      'POST',
      `/crm/v3/objects/${object}/batch/read`,
      {
        // Without idProperty the keys are record ids.
        ...(idProperty !== undefined ? { idProperty } : {}),
        inputs: keys.map((key) => ({ id: key })),
        properties: [...new Set([...wanted, ...(idProperty !== undefined ? [idProperty] : []), ...extra])],
        propertiesWithHistory: [],
      },
      signal,
    );
    const found = new Map<string, HeldRecord>();
    for (const record of checkAnswer(batchSchema, answer, { crm: 'HubSpot', call }).results) {
      const key =
        idProperty === undefined ? keys.find((id) => id === record.id) : keyOf(record, idProperty, keys);
      if (key !== undefined) found.set(key, { id: record.id, properties: record.properties });
    }
    return found;
  };

  /** Records found by id (carried, adopted) are updated by it: batch/update, a 207 naming the ids refused. */
  const update = async (object: CrmObject, requests: readonly WriteRequest[], signal: AbortSignal) => {
    const call = `POST /crm/v3/objects/${object}/batch/update`;
    const answer = await client.request(
      'POST',
      `/crm/v3/objects/${object}/batch/update`,
      { inputs: requests.map((request) => ({ id: request.id!, properties: request.properties })) },
      signal,
    );
    const body = checkAnswer(batchSchema, answer, { crm: 'HubSpot', call });
    const refused = new Map<string, string>();
    for (const item of body.errors)
      for (const id of item.context?.ids ?? []) refused.set(id, item.message ?? 'refused by HubSpot');
    const done = new Set(body.results.map((result) => result.id));
    return requests.map((request): WriteResult => {
      if (done.has(request.id!)) return { ok: true, id: request.id!, created: false };
      return { ok: false, error: refused.get(request.id!) ?? `HubSpot did not update record ${request.id}` };
    });
  };

  const upsert = async (
    object: CrmObject,
    requests: readonly WriteRequest[],
    signal: AbortSignal,
  ): Promise<WriteResult[]> => {
    if (requests.length === 0) return [];
    const idProperty = requests[0]!.idProperty;
    const call = `POST /crm/v3/objects/${object}/batch/upsert`;
    const answer = await client.request(
      'POST',
      `/crm/v3/objects/${object}/batch/upsert`,
      {
        inputs: requests.map((request, at) => ({
          idProperty,
          id: request.key,
          properties: request.properties,
          objectWriteTraceId: String(at),
        })),
      },
      signal,
    );
    const body = checkAnswer(batchSchema, answer, { crm: 'HubSpot', call });
    const failedTraces = new Map<string, string>();
    for (const item of body.errors)
      for (const trace of item.context?.objectWriteTraceId ?? [])
        failedTraces.set(trace, item.message ?? 'refused by HubSpot');
    const results: Array<WriteResult | undefined> = requests.map(() => undefined);
    const unmatched = new Set(body.results);
    const keys = requests.map((request) => request.key);
    for (const result of body.results) {
      const trace = result.objectWriteTraceId;
      const at =
        trace !== undefined && /^\d+$/.test(trace) && Number(trace) < requests.length
          ? Number(trace)
          : keys.indexOf(keyOf(result, idProperty, keys) ?? '\u0000');
      if (at < 0 || results[at] !== undefined) continue;
      results[at] = { ok: true, id: result.id, created: result.new !== false };
      unmatched.delete(result);
    }
    const missing = requests.flatMap((request, at) =>
      results[at] === undefined && !failedTraces.has(String(at)) ? [request.key] : [],
    );
    // Neither traced nor echoed (or not in the answer at all): the record's id, read back by key.
    const held =
      missing.length === 0
        ? new Map<string, HeldRecord>()
        : await read(object, idProperty, missing, [], signal);
    const left = [...unmatched];
    return requests.map((request, at): WriteResult => {
      const done = results[at];
      if (done !== undefined) return done;
      const refused = failedTraces.get(String(at));
      if (refused !== undefined) return { ok: false, error: refused };
      const record = held.get(request.key);
      if (record === undefined) return { ok: false, error: 'HubSpot did not return the record' };
      const result = left.find((candidate) => candidate.id === record.id);
      return { ok: true, id: record.id, created: result !== undefined && result.new !== false };
    });
  };

  const write = async (object: CrmObject, requests: readonly WriteRequest[], signal: AbortSignal) => {
    const byId = requests.filter((request) => request.id !== undefined);
    const byKey = requests.filter((request) => request.id === undefined);
    const updated = byId.length === 0 ? [] : await update(object, byId, signal);
    const upserted = await upsert(object, byKey, signal);
    return requests.map((request) =>
      request.id !== undefined ? updated[byId.indexOf(request)]! : upserted[byKey.indexOf(request)]!,
    );
  };

  return {
    tasks: createHubSpotTasks(client),
    name: 'HubSpot',
    limits: { writeBatch: HUBSPOT_BATCH_LIMIT, readBatch: HUBSPOT_BATCH_LIMIT },
    read,
    write,
    search: (object, field, values, keyProperty, signal) =>
      searchHubSpot(client, object, field, values, keyProperty, signal),
    ownerEmail: (fields, signal) => hubspotOwnerEmail(client, fields, signal),
    async link(links, signal) {
      const answer = await client.request(
        'POST',
        '/crm/v4/associations/contacts/companies/batch/create',
        {
          inputs: links.map((link) => ({
            from: { id: link.contactId },
            to: { id: link.companyId },
            types: [
              { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: CONTACT_TO_COMPANY },
              ...(link.primary
                ? [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: CONTACT_TO_PRIMARY_COMPANY }]
                : []),
            ],
          })),
        },
        signal,
      );
      const body = checkAnswer(associationSchema, answer, {
        crm: 'HubSpot',
        call: 'POST /crm/v4/associations/contacts/companies/batch/create',
      });
      const done = new Set(body.results.map((r) => `${r.fromObjectId}>${r.toObjectId}`));
      return links.map((link) =>
        done.has(`${link.contactId}>${link.companyId}`)
          ? undefined
          : (body.errors[0]?.message ?? 'not returned'),
      );
    },
    async fieldDefinitions(object, signal) {
      const call = `GET /crm/v3/properties/${object}`;
      try {
        return readDefinitions(
          await client.request('GET', `/crm/v3/properties/${object}`, undefined, signal),
          call,
        );
      } catch (error) {
        // Without the schema scope values go unchecked, as in a file; anything else is the batch's trouble.
        if (error instanceof CrmError && error.status === 403) return undefined;
        throw error;
      }
    },
    async check(signal) {
      // A read of a record that is not there: 2xx (207) proves the token and the read scopes.
      for (const object of ['contacts', 'companies']) {
        const body = { inputs: [{ id: '0' }], properties: [], propertiesWithHistory: [] };
        await client.request('POST', `/crm/v3/objects/${object}/batch/read`, body, signal);
      }
      return 'the token reads contacts and companies (crm.objects.contacts.read, crm.objects.companies.read)';
    },
  };
}
