/**
 * The properties API (shared/docs/hubspot-api.md §1.1): list, read one, create (409 when the name is taken, at
 * most 10 unique properties an object).
 */

import type { Answer, HandlerContext } from './batch-input.js';
import { hubSpotError } from './errors.js';
import { type CrmObjectType, checkPropertyCreate, definitionBody } from './properties.js';

/** `GET /crm/v3/properties/{type}`. */
export function listProperties(ctx: HandlerContext, type: CrmObjectType): Answer {
  return { status: 200, body: { results: [...ctx.store.definitions[type].values()].map(definitionBody) } };
}

/** `GET /crm/v3/properties/{type}/{name}`: 200 or 404. */
export function getProperty(ctx: HandlerContext, type: CrmObjectType, name: string): Answer {
  const definition = ctx.store.definitions[type].get(name);
  if (!definition) {
    // [inferred] wording of the 404; the category is the one HubSpot uses for a missing object.
    return {
      status: 404,
      body: hubSpotError(`Unable to find property ${name}`, 'OBJECT_NOT_FOUND', {
        context: { name: [name] },
      }),
    };
  }
  return { status: 200, body: definitionBody(definition) };
}

/** `POST /crm/v3/properties/{type}`: 201 with the definition. */
export function createProperty(ctx: HandlerContext, type: CrmObjectType, body: unknown): Answer {
  const checked = checkPropertyCreate(body, ctx.store.definitions[type]);
  if ('error' in checked) return { status: checked.status, body: checked.error };
  return { status: 201, body: definitionBody(ctx.store.define(type, checked.input, ctx.now())) };
}
