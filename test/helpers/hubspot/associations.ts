/**
 * Associations v4, contacts to companies (shared/docs/hubspot-api.md §3): `batch/create` with explicit types
 * (279 unlabeled, 1 primary) answers 201, `batch/associate/default` answers 200. Both are idempotent; a pair
 * whose contact or company does not exist is reported in a 207. `batch/read` lists a contact's companies.
 */

import { type Answer, batchBody, type HandlerContext } from './batch-input.js';
import { hubSpotError, invalidInputBody } from './errors.js';
import { CONTACT_TO_COMPANY_TYPES } from './store.js';

/** [inferred] Associations take more than objects (§3 reports 1,000 to 2,000); the stand-in allows 1,000. */
export const MAX_ASSOCIATION_INPUTS = 1_000;

interface Pair {
  contactId: string;
  companyId: string;
  raw: unknown;
}

function pairs(body: unknown): { pairs: Pair[]; inputs: Record<string, unknown>[] } | { error: Answer } {
  const inputs = (body as { inputs?: unknown } | null)?.inputs;
  if (!Array.isArray(inputs))
    return { error: { status: 400, body: invalidInputBody('inputs must be an array') } };
  if (inputs.length > MAX_ASSOCIATION_INPUTS) {
    return {
      error: {
        status: 400,
        body: hubSpotError(
          `The maximum number of inputs supported in a batch is ${MAX_ASSOCIATION_INPUTS}. Please reduce the number of items and try again`,
          'VALIDATION_ERROR',
        ),
      },
    };
  }
  const result: Pair[] = [];
  for (const input of inputs as Array<{ from?: { id?: unknown }; to?: { id?: unknown } } | null>) {
    const [from, to] = [input?.from?.id, input?.to?.id];
    if (
      (typeof from !== 'string' && typeof from !== 'number') ||
      (typeof to !== 'string' && typeof to !== 'number')
    ) {
      return { error: { status: 400, body: invalidInputBody('each input needs from.id and to.id') } };
    }
    result.push({ contactId: String(from), companyId: String(to), raw: input });
  }
  return { pairs: result, inputs: inputs as Record<string, unknown>[] };
}

/** [inferred] A missing record in a pair is named in a 207 error; HubSpot's wording was not captured. */
function missingRecord(ctx: HandlerContext, pair: Pair): unknown | undefined {
  const missing = !ctx.store.get('contacts', pair.contactId)
    ? { objectType: 'contact', id: pair.contactId }
    : !ctx.store.get('companies', pair.companyId)
      ? { objectType: 'company', id: pair.companyId }
      : undefined;
  if (!missing) return undefined;
  return {
    status: 'error',
    category: 'VALIDATION_ERROR',
    subCategory: 'crm.associations.INVALID_OBJECT_IDS',
    message: `No ${missing.objectType} with ID ${missing.id} exists`,
    context: { ids: [missing.id] },
  };
}

/** `POST /crm/v4/associations/contacts/companies/batch/create` (§3). */
export function createAssociations(ctx: HandlerContext, body: unknown): Answer {
  const startedAt = new Date(ctx.now()).toISOString();
  const parsed = pairs(body);
  if ('error' in parsed) return parsed.error;
  const planned: Array<{ pair: Pair; typeIds: number[] }> = [];
  for (const pair of parsed.pairs) {
    const types = (pair.raw as { types?: unknown }).types;
    if (!Array.isArray(types) || types.length === 0) {
      return { status: 400, body: invalidInputBody('each input needs types') };
    }
    const typeIds: number[] = [];
    for (const kind of types as Array<{ associationCategory?: unknown; associationTypeId?: unknown }>) {
      const typeId = Number(kind?.associationTypeId);
      if (kind?.associationCategory !== 'HUBSPOT_DEFINED' || !CONTACT_TO_COMPANY_TYPES.has(typeId)) {
        return {
          status: 400,
          body: hubSpotError(
            `${String(kind?.associationCategory)} association type ${String(kind?.associationTypeId)} is not valid from contact to company`,
            'VALIDATION_ERROR',
          ),
        };
      }
      typeIds.push(typeId);
    }
    planned.push({ pair, typeIds });
  }
  const results: unknown[] = [];
  const errors: unknown[] = [];
  for (const { pair, typeIds } of planned) {
    const error = missingRecord(ctx, pair);
    if (error) {
      errors.push(error);
      continue;
    }
    for (const typeId of typeIds) ctx.store.associate(pair.contactId, pair.companyId, typeId);
    results.push({
      fromObjectTypeId: '0-1',
      fromObjectId: Number(pair.contactId),
      toObjectTypeId: '0-2',
      toObjectId: Number(pair.companyId),
      labels: ctx.store.labelsOf(pair.contactId, pair.companyId),
    });
  }
  return { status: errors.length > 0 ? 207 : 201, body: batchBody(startedAt, results, errors) };
}

/** `POST /crm/v4/associations/contacts/companies/batch/associate/default`: the unlabeled type (§3). */
export function associateDefault(ctx: HandlerContext, body: unknown): Answer {
  const startedAt = new Date(ctx.now()).toISOString();
  const parsed = pairs(body);
  if ('error' in parsed) return parsed.error;
  const results: unknown[] = [];
  const errors: unknown[] = [];
  for (const pair of parsed.pairs) {
    const error = missingRecord(ctx, pair);
    if (error) {
      errors.push(error);
      continue;
    }
    ctx.store.associate(pair.contactId, pair.companyId, 279);
    results.push({
      from: { id: pair.contactId },
      to: { id: pair.companyId },
      associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 },
    });
  }
  return { status: errors.length > 0 ? 207 : 200, body: batchBody(startedAt, results, errors) };
}

/**
 * `POST /crm/v4/associations/contacts/companies/batch/read` with `{inputs:[{id}]}`: each contact's companies and
 * their types; a contact with none is named in a 207 (SDK `BatchResponsePublicAssociationMultiWithErrors`).
 */
export function readAssociations(ctx: HandlerContext, body: unknown): Answer {
  const startedAt = new Date(ctx.now()).toISOString();
  const inputs = (body as { inputs?: unknown } | null)?.inputs;
  if (!Array.isArray(inputs)) return { status: 400, body: invalidInputBody('inputs must be an array') };
  if (inputs.length > MAX_ASSOCIATION_INPUTS) {
    return { status: 400, body: invalidInputBody(`at most ${MAX_ASSOCIATION_INPUTS} inputs`) };
  }
  const rows = ctx.store.associations();
  const results: unknown[] = [];
  const missing: string[] = [];
  for (const input of inputs as Array<{ id?: unknown } | null>) {
    const contactId = String(input?.id ?? '');
    const companies = new Map<string, number[]>();
    for (const row of rows) {
      if (row.contactId === contactId)
        companies.set(row.companyId, [...(companies.get(row.companyId) ?? []), row.typeId]);
    }
    if (companies.size === 0) {
      missing.push(contactId);
      continue;
    }
    results.push({
      from: { id: contactId },
      to: [...companies].map(([companyId, typeIds]) => ({
        toObjectId: Number(companyId),
        associationTypes: typeIds.map((typeId) => ({
          category: 'HUBSPOT_DEFINED',
          typeId,
          label: typeId === 1 ? 'Primary' : null,
        })),
      })),
    });
  }
  const errors =
    missing.length === 0
      ? []
      : [
          {
            status: 'error',
            category: 'OBJECT_NOT_FOUND',
            // [inferred] wording; HubSpot reports contacts without associations as errors of the batch.
            message: 'No associations found for some objects',
            context: { fromObjectIds: missing },
          },
        ];
  return { status: errors.length > 0 ? 207 : 200, body: batchBody(startedAt, results, errors) };
}
