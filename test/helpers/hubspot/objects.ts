/**
 * The CRM objects API for contacts and companies (shared/docs/hubspot-api.md §1): batch upsert, read, create and
 * update, single create and read. Writes check every value first (§6) and either fail the whole batch or, with a
 * distinct `objectWriteTraceId` on every input where HubSpot allows it, answer 207 naming the bad inputs (§1.2).
 */

import {
  type Answer,
  allTraceIds,
  batchBody,
  batchInputs,
  conflictBody,
  type HandlerContext,
  inputProperties,
  objectsNotFound,
  recordBody,
  tracedError,
} from './batch-input.js';
import {
  duplicateIdsBody,
  type HubSpotErrorBody,
  hubSpotError,
  invalidInputBody,
  invalidPropertiesBody,
  nonUniqueIdPropertyBody,
} from './errors.js';
import { type CrmObjectType, OBJECT_TYPE_IDS } from './properties.js';
import { normalizeKey, type StoredRecord } from './store.js';
import { checkPropertyValues } from './values.js';

type KeyUse = 'upsert' | 'update' | 'read';

/**
 * Whether `idProperty` can identify records: `email` for contacts (but not for batch update, §1), or a property
 * with `hasUniqueValue`; never `domain` nor `hs_object_id` (§1.1). Undefined when it can.
 */
function idPropertyError(
  ctx: HandlerContext,
  type: CrmObjectType,
  idProperty: string,
  use: KeyUse,
): Answer | undefined {
  if (type === 'contacts' && idProperty === 'email' && use !== 'update') return undefined;
  const definition = ctx.store.definitions[type].get(idProperty);
  if (definition?.hasUniqueValue && !definition.readOnlyValue) return undefined;
  return { status: 400, body: nonUniqueIdPropertyBody(OBJECT_TYPE_IDS[type], idProperty, ctx.portalId) };
}

/** A planned write: its target (found or to create), the values it sets, and its trace id. */
interface PlannedWrite {
  index: number;
  target: StoredRecord | undefined;
  values: Record<string, string>;
  key?: { idProperty: string; id: string };
}

/**
 * Checks planned writes: all-or-nothing answers the first failure (400, or 409 for a taken unique value), a
 * traced batch collects them per input for a 207.
 */
function checkWrites(
  ctx: HandlerContext,
  type: CrmObjectType,
  planned: readonly PlannedWrite[],
  partial: boolean,
): { failures: Map<number, HubSpotErrorBody> } | { error: Answer } {
  const failures = new Map<number, HubSpotErrorBody>();
  // Unique values claimed by earlier inputs of this batch, and the record (or new record) that claims them.
  const claimed = new Map<string, string>();
  for (const write of planned) {
    const items = checkPropertyValues(write.values, ctx.store.definitions[type], ctx.portalId);
    if (items.length > 0) {
      if (!partial) return { error: { status: 400, body: invalidPropertiesBody(items) } };
      failures.set(write.index, invalidPropertiesBody(items));
      continue;
    }
    const claimant = write.target?.id ?? `new input ${write.index}`;
    const conflict =
      ctx.store.uniqueConflict(type, write.values, write.target?.id) ??
      claimInBatch(ctx, type, write, claimant, claimed);
    if (conflict) {
      if (!partial) return { error: { status: 409, body: conflictBody(type, conflict) } };
      failures.set(write.index, conflictBody(type, conflict));
    }
  }
  return { failures };
}

/** A unique value an earlier input of the same batch already sets for another record. */
function claimInBatch(
  ctx: HandlerContext,
  type: CrmObjectType,
  write: PlannedWrite,
  claimant: string,
  claimed: Map<string, string>,
): { name: string; value: string; existingId: string } | undefined {
  for (const [name, value] of Object.entries(write.values)) {
    if (!ctx.store.isUnique(type, name) || value === '') continue;
    const slot = `${name}\u0000${normalizeKey(name, value)}`;
    const holder = claimed.get(slot);
    if (holder !== undefined && holder !== claimant) return { name, value, existingId: holder };
    claimed.set(slot, claimant);
  }
  return undefined;
}

/** Ids that occur more than once after the key's own normalization (§1: e-mail case-insensitive). */
function duplicateIds(keys: readonly { idProperty: string; id: string }[]): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { idProperty, id } of keys) {
    const key = normalizeKey(idProperty, id);
    const slot = `${idProperty}\u0000${key}`;
    if (seen.has(slot)) duplicates.add(key);
    seen.add(slot);
  }
  return [...duplicates];
}

/** `POST /crm/v3/objects/{type}/batch/upsert` (§1, §1.1, §1.2). */
export function batchUpsert(ctx: HandlerContext, type: CrmObjectType, body: unknown): Answer {
  const startedAt = new Date(ctx.now()).toISOString();
  const parsed = batchInputs(body);
  if ('error' in parsed) return parsed.error;
  const planned: PlannedWrite[] = [];
  for (const [index, input] of parsed.inputs.entries()) {
    const { idProperty, id } = input;
    const properties = inputProperties(input);
    if (typeof idProperty !== 'string' || typeof id !== 'string' || properties === undefined) {
      return { status: 400, body: invalidInputBody('each input needs idProperty, id and properties') };
    }
    const keyError = idPropertyError(ctx, type, idProperty, 'upsert');
    if (keyError) return keyError;
    const target = ctx.store.findBy(type, idProperty, id);
    planned.push({ index, target, values: { ...properties, [idProperty]: id }, key: { idProperty, id } });
  }
  const duplicates = duplicateIds(planned.map((write) => write.key!));
  if (duplicates.length > 0) return { status: 400, body: duplicateIdsBody(duplicates) };
  // "Partial upserts are not supported when using email as the idProperty" (§1.2).
  const traceIds = allTraceIds(parsed.inputs);
  const partial = traceIds !== undefined && planned.every((write) => write.key?.idProperty !== 'email');
  const checked = checkWrites(ctx, type, planned, partial);
  if ('error' in checked) return checked.error;
  const results: unknown[] = [];
  for (const write of planned) {
    if (checked.failures.has(write.index)) continue;
    const nowMs = ctx.now();
    const isNew = write.target === undefined;
    const record = write.target ?? ctx.store.create(type, write.values, nowMs);
    if (!isNew) ctx.store.write(record, write.values, nowMs);
    const traceId = parsed.inputs[write.index]?.objectWriteTraceId;
    // The reference promises neither field in a result: an e-mail-keyed batch (no partial results, §1.2)
    // is answered without trace ids, and without the key among the properties.
    const echoed = Object.keys(write.values).filter((name) => name !== 'email' || partial);
    results.push({
      ...recordBody(ctx.store, record, echoed),
      new: isNew,
      ...(typeof traceId === 'string' && partial ? { objectWriteTraceId: traceId } : {}),
    });
  }
  const errors = [...checked.failures].map(([index, error]) => tracedError(traceIds![index]!, error));
  return { status: errors.length > 0 ? 207 : 200, body: batchBody(startedAt, results, errors) };
}

/** `POST /crm/v3/objects/{type}/batch/read` by record id or `idProperty`; misses make a 207 (§1). */
export function batchRead(ctx: HandlerContext, type: CrmObjectType, body: unknown): Answer {
  const startedAt = new Date(ctx.now()).toISOString();
  const raw = (body ?? {}) as Record<string, unknown>;
  const withHistory = Array.isArray(raw.propertiesWithHistory) && raw.propertiesWithHistory.length > 0;
  const parsed = batchInputs(body, withHistory ? 50 : undefined);
  if ('error' in parsed) return parsed.error;
  const idProperty = typeof raw.idProperty === 'string' && raw.idProperty !== '' ? raw.idProperty : undefined;
  if (idProperty !== undefined && idProperty !== 'hs_object_id') {
    const keyError = idPropertyError(ctx, type, idProperty, 'read');
    if (keyError) return keyError;
  }
  const requested = Array.isArray(raw.properties)
    ? raw.properties.filter((name): name is string => typeof name === 'string')
    : undefined;
  const names = requested && idProperty ? [...requested, idProperty] : requested;
  const results = new Map<string, unknown>();
  const missing: string[] = [];
  for (const input of parsed.inputs) {
    if (typeof input.id !== 'string')
      return { status: 400, body: invalidInputBody('each input needs an id') };
    const record = idProperty ? ctx.store.findBy(type, idProperty, input.id) : ctx.store.get(type, input.id);
    if (record) results.set(record.id, recordBody(ctx.store, record, names));
    else missing.push(input.id);
  }
  const errors = missing.length === 0 ? [] : [objectsNotFound(type, missing)];
  return { status: errors.length > 0 ? 207 : 200, body: batchBody(startedAt, [...results.values()], errors) };
}

/** Adds `associations` given on create (`{to:{id}, types:[{associationTypeId}]}`): contacts to companies only. */
function associateOnCreate(
  ctx: HandlerContext,
  type: CrmObjectType,
  record: StoredRecord,
  input: unknown,
): void {
  if (type !== 'contacts' || !Array.isArray(input)) return;
  for (const association of input as Array<{
    to?: { id?: unknown };
    types?: Array<{ associationTypeId?: unknown }>;
  }>) {
    const companyId = String(association.to?.id ?? '');
    if (!ctx.store.get('companies', companyId)) continue;
    for (const kind of association.types ?? []) {
      if (kind.associationTypeId === 279 || kind.associationTypeId === 1) {
        ctx.store.associate(record.id, companyId, kind.associationTypeId);
      }
    }
  }
}

/** `POST /crm/v3/objects/{type}/batch/create`: 201, or 207 with trace ids (§1). */
export function batchCreate(ctx: HandlerContext, type: CrmObjectType, body: unknown): Answer {
  const startedAt = new Date(ctx.now()).toISOString();
  const parsed = batchInputs(body);
  if ('error' in parsed) return parsed.error;
  const planned: PlannedWrite[] = [];
  for (const [index, input] of parsed.inputs.entries()) {
    const properties = inputProperties(input);
    if (properties === undefined)
      return { status: 400, body: invalidInputBody('properties must be an object') };
    planned.push({ index, target: undefined, values: properties });
  }
  const traceIds = allTraceIds(parsed.inputs);
  const checked = checkWrites(ctx, type, planned, traceIds !== undefined);
  if ('error' in checked) return checked.error;
  const results: unknown[] = [];
  for (const write of planned) {
    if (checked.failures.has(write.index)) continue;
    const input = parsed.inputs[write.index]!;
    const record = ctx.store.create(type, write.values, ctx.now());
    associateOnCreate(ctx, type, record, input.associations);
    results.push({
      ...recordBody(ctx.store, record, Object.keys(write.values)),
      ...(typeof input.objectWriteTraceId === 'string'
        ? { objectWriteTraceId: input.objectWriteTraceId }
        : {}),
    });
  }
  const errors = [...checked.failures].map(([index, error]) => tracedError(traceIds![index]!, error));
  return { status: errors.length > 0 ? 207 : 201, body: batchBody(startedAt, results, errors) };
}

/** `POST /crm/v3/objects/{type}/batch/update` by record id or a unique property; misses make a 207 (§1). */
export function batchUpdate(ctx: HandlerContext, type: CrmObjectType, body: unknown): Answer {
  const startedAt = new Date(ctx.now()).toISOString();
  const parsed = batchInputs(body);
  if ('error' in parsed) return parsed.error;
  const planned: PlannedWrite[] = [];
  const missing: string[] = [];
  for (const [index, input] of parsed.inputs.entries()) {
    const properties = inputProperties(input);
    const idProperty = typeof input.idProperty === 'string' ? input.idProperty : undefined;
    if (typeof input.id !== 'string' || properties === undefined) {
      return { status: 400, body: invalidInputBody('each input needs an id and properties') };
    }
    if (idProperty !== undefined) {
      const keyError = idPropertyError(ctx, type, idProperty, 'update');
      if (keyError) return keyError;
    }
    const target = idProperty ? ctx.store.findBy(type, idProperty, input.id) : ctx.store.get(type, input.id);
    if (!target) missing.push(input.id);
    planned.push({
      index,
      target,
      values: properties,
      key: { idProperty: idProperty ?? 'hs_object_id', id: input.id },
    });
  }
  const duplicates = duplicateIds(planned.map((write) => write.key!));
  if (duplicates.length > 0) return { status: 400, body: duplicateIdsBody(duplicates) };
  const traceIds = allTraceIds(parsed.inputs);
  const found = planned.filter((write) => write.target !== undefined);
  const checked = checkWrites(ctx, type, found, traceIds !== undefined);
  if ('error' in checked) return checked.error;
  const results: unknown[] = [];
  for (const write of found) {
    if (checked.failures.has(write.index)) continue;
    ctx.store.write(write.target!, write.values, ctx.now());
    results.push(recordBody(ctx.store, write.target!, Object.keys(write.values)));
  }
  const errors: unknown[] = [...checked.failures].map(([index, error]) =>
    tracedError(traceIds![index]!, error),
  );
  if (missing.length > 0) errors.push(objectsNotFound(type, missing));
  return { status: errors.length > 0 ? 207 : 200, body: batchBody(startedAt, results, errors) };
}

/** 404 for a single record, as HubSpot words it. */
function notFound(id: string): Answer {
  return {
    status: 404,
    body: hubSpotError('Object not found.  objectId are usually numeric.', 'OBJECT_NOT_FOUND', {
      context: { id: [id] },
    }),
  };
}

/** The record a single-record path names, by id or by `?idProperty=` (e-mail allowed here): it, or the answer. */
function singleRecord(
  ctx: HandlerContext,
  type: CrmObjectType,
  id: string,
  query: URLSearchParams,
): { record: StoredRecord } | { error: Answer } {
  const idProperty = query.get('idProperty') ?? undefined;
  if (idProperty !== undefined && idProperty !== 'hs_object_id') {
    const keyError = idPropertyError(ctx, type, idProperty, 'read');
    if (keyError) return { error: keyError };
  }
  const record = idProperty ? ctx.store.findBy(type, idProperty, id) : ctx.store.get(type, id);
  return record ? { record } : { error: notFound(id) };
}

/** `GET /crm/v3/objects/{type}/{id}?idProperty=&properties=a,b`: 200 or 404 (§1). */
export function getObject(
  ctx: HandlerContext,
  type: CrmObjectType,
  id: string,
  query: URLSearchParams,
): Answer {
  const found = singleRecord(ctx, type, id, query);
  if ('error' in found) return found.error;
  const listed = query.get('properties');
  const names = listed ? listed.split(',').filter(Boolean) : undefined;
  return { status: 200, body: recordBody(ctx.store, found.record, names) };
}

/** `PATCH /crm/v3/objects/{type}/{id}?idProperty=` with `{properties}`: 200, 404, 400 or 409 (§1; e-mail works here). */
export function updateObject(
  ctx: HandlerContext,
  type: CrmObjectType,
  id: string,
  query: URLSearchParams,
  body: unknown,
): Answer {
  const found = singleRecord(ctx, type, id, query);
  if ('error' in found) return found.error;
  const { record } = found;
  const properties = inputProperties((body ?? {}) as Record<string, unknown>);
  if (properties === undefined)
    return { status: 400, body: invalidInputBody('properties must be an object') };
  const checked = checkWrites(ctx, type, [{ index: 0, target: record, values: properties }], false);
  if ('error' in checked) return checked.error;
  ctx.store.write(record, properties, ctx.now());
  return { status: 200, body: recordBody(ctx.store, record, Object.keys(properties)) };
}

/** `POST /crm/v3/objects/{type}` with `{properties, associations?}`: 201, 400, or 409 for a taken e-mail (§1). */
export function createObject(ctx: HandlerContext, type: CrmObjectType, body: unknown): Answer {
  const input = (body ?? {}) as Record<string, unknown>;
  const properties = inputProperties(input);
  if (properties === undefined)
    return { status: 400, body: invalidInputBody('properties must be an object') };
  const checked = checkWrites(ctx, type, [{ index: 0, target: undefined, values: properties }], false);
  if ('error' in checked) return checked.error;
  const record = ctx.store.create(type, properties, ctx.now());
  associateOnCreate(ctx, type, record, input.associations);
  return { status: 201, body: recordBody(ctx.store, record, Object.keys(properties)) };
}
