/**
 * What every object batch endpoint shares: the `inputs` array and its limit, the batch envelope of the answer,
 * the record shape, and the all-or-nothing versus 207 rule of trace ids (shared/docs/hubspot-api.md §1, §1.2).
 */
import {
  type HubSpotErrorBody,
  hubSpotError,
  invalidInputBody,
  invalidPropertiesBody,
  type PropertyValueError,
  tooManyInputsBody,
} from './errors.js';
import type { CrmObjectType } from './properties.js';
import { type CrmStore, LAST_MODIFIED, type StoredRecord } from './store.js';

/** "Batch limit: 100 inputs on every object batch endpoint" (§1). */
export const MAX_BATCH_INPUTS = 100;

/** What a route handler answers. */
export interface Answer {
  status: number;
  body: unknown;
}

/** What a route handler works with. */
export interface HandlerContext {
  readonly store: CrmStore;
  readonly portalId: number;
  readonly now: () => number;
}

/** HubSpot's default properties of a record read without a `properties` list. */
export const DEFAULT_READ_PROPERTIES: Record<CrmObjectType, readonly string[]> = {
  contacts: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
  companies: ['createdate', 'domain', 'hs_lastmodifieddate', 'hs_object_id', 'name'],
};

/** The object names HubSpot uses in its messages ("Could not get some CONTACT objects"). */
export const OBJECT_NAME: Record<CrmObjectType, string> = { contacts: 'CONTACT', companies: 'COMPANY' };

/** The `inputs` array of a batch body, within the limit, or the 400 to answer. */
export function batchInputs(
  body: unknown,
  max = MAX_BATCH_INPUTS,
): { inputs: Record<string, unknown>[] } | { error: Answer } {
  const inputs = (body as { inputs?: unknown } | null)?.inputs;
  if (!Array.isArray(inputs))
    return { error: { status: 400, body: invalidInputBody('inputs must be an array') } };
  if (inputs.length > max) return { error: { status: 400, body: tooManyInputsBody(max) } };
  if (!inputs.every((input) => typeof input === 'object' && input !== null && !Array.isArray(input))) {
    return { error: { status: 400, body: invalidInputBody('every input must be an object') } };
  }
  return { inputs: inputs as Record<string, unknown>[] };
}

/** An input's `properties` as strings (HubSpot takes every value as a string, §6), or undefined if malformed. */
export function inputProperties(input: Record<string, unknown>): Record<string, string> | undefined {
  const raw = input.properties ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const properties: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== null && typeof value === 'object') return undefined;
    properties[name] = value === null || value === undefined ? '' : String(value);
  }
  return properties;
}

/**
 * Trace ids, when every input carries a distinct one: HubSpot's switch from "the first bad input fails the
 * batch" to a 207 that names the bad inputs (§1.2).
 */
export function allTraceIds(inputs: readonly Record<string, unknown>[]): string[] | undefined {
  const ids = inputs.map((input) => input.objectWriteTraceId);
  if (!ids.every((id): id is string => typeof id === 'string' && id !== '')) return undefined;
  return new Set(ids).size === ids.length ? ids : undefined;
}

/** The record object of every answer: `{id, properties, createdAt, updatedAt, archived}`. */
export function recordBody(
  store: CrmStore,
  record: StoredRecord,
  names: readonly string[] | undefined,
): Record<string, unknown> {
  const values = store.valuesOf(record);
  const wanted = names ?? DEFAULT_READ_PROPERTIES[record.type];
  // A property with no value is left out (Using object APIs); the system ones are always there.
  const properties: Record<string, string> = {};
  for (const name of new Set([...wanted, 'hs_object_id', 'createdate', LAST_MODIFIED[record.type]])) {
    const value = values[name];
    if (value !== undefined) properties[name] = value;
  }
  return {
    id: record.id,
    properties,
    createdAt: new Date(record.createdAtMs).toISOString(),
    updatedAt: new Date(record.updatedAtMs).toISOString(),
    archived: false,
  };
}

/** The envelope of a batch answer; `errors` make it a 207 with `numErrors` (§1). */
export function batchBody(
  startedAt: string,
  results: unknown[],
  errors: readonly unknown[] = [],
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    status: 'COMPLETE',
    results,
    startedAt,
    completedAt: new Date().toISOString(),
  };
  if (errors.length > 0) {
    body.numErrors = errors.length;
    body.errors = errors;
  }
  return body;
}

/** The 207 error of a batch read or update for ids that match no record (§1, captured). */
export function objectsNotFound(type: CrmObjectType, ids: readonly string[]): Record<string, unknown> {
  return {
    status: 'error',
    category: 'OBJECT_NOT_FOUND',
    message: `Could not get some ${OBJECT_NAME[type]} objects, they may be deleted or not exist. Check that ids are valid.`,
    context: { ids: [...ids] },
  };
}

/** One 207 error naming the input by its trace id (§1.2). */
export function tracedError(traceId: string, error: HubSpotErrorBody): Record<string, unknown> {
  return {
    status: 'error',
    category: error.category,
    message: error.message,
    context: { ...error.context, objectWriteTraceId: [traceId] },
  };
}

/** A 400 for the first bad input of a batch that cannot partly succeed; its message names only that input. */
export function firstInvalid(items: readonly PropertyValueError[]): Answer {
  return { status: 400, body: invalidPropertiesBody(items) };
}

/** 409 for a unique value another record holds; for a contact's e-mail HubSpot's own captured text (§6). */
export function conflictBody(
  type: CrmObjectType,
  conflict: { name: string; value: string; existingId: string },
): HubSpotErrorBody {
  if (type === 'contacts' && conflict.name === 'email') {
    return hubSpotError(`Contact already exists. Existing ID: ${conflict.existingId}`, 'CONFLICT');
  }
  // [inferred] the same shape for a custom unique property; the wording was not captured.
  return hubSpotError(
    `A ${OBJECT_NAME[type].toLowerCase()} with ${conflict.name} ${conflict.value} already exists. Existing ID: ${conflict.existingId}`,
    'CONFLICT',
  );
}
