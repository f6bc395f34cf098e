/**
 * `GET /crm/v3/objects/{type}?limit=&after=&properties=a,b` (HubSpot's "list" of a CRM object, the
 * objects API reference): records in id order, `limit` 10 by default and 100 at most, and `paging.next.after`
 * (the next record's id, with its `link`) while more remain. Archived records are not listed.
 */

import { type Answer, type HandlerContext, recordBody } from './batch-input.js';
import { hubSpotError } from './errors.js';
import type { CrmObjectType } from './properties.js';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

/** The list answer: `{results, paging?}`. */
export function listObjects(ctx: HandlerContext, type: CrmObjectType, query: URLSearchParams): Answer {
  const limit = query.has('limit') ? Number(query.get('limit')) : DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    // [inferred] wording: HubSpot refuses a limit past 100 on a list.
    return {
      status: 400,
      body: hubSpotError(`limit must be between 1 and ${MAX_LIMIT}`, 'VALIDATION_ERROR'),
    };
  }
  const after = query.get('after');
  if (after !== null && !/^\d+$/.test(after)) {
    return { status: 400, body: hubSpotError('after must be a paging cursor', 'VALIDATION_ERROR') };
  }
  const listed = query.get('properties');
  const names = listed ? listed.split(',').filter(Boolean) : undefined;
  const records = ctx.store
    .all(type)
    .filter((record) => after === null || Number(record.id) >= Number(after))
    .sort((a, b) => Number(a.id) - Number(b.id));
  const page = records.slice(0, limit);
  const next = records[limit];
  return {
    status: 200,
    body: {
      results: page.map((record) => recordBody(ctx.store, record, names)),
      ...(next === undefined
        ? {}
        : {
            paging: {
              next: { after: next.id, link: `?after=${next.id}` },
            },
          }),
    },
  };
}
