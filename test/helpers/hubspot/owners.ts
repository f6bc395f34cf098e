/**
 * HubSpot's owners (shared/docs/alerts-and-plays-api.md §4.1): `GET /crm/v3/owners/{ownerId}` with
 * `idProperty=id|userId` and `archived`; `archived=true` finds only archived owners (deactivated users), the
 * default only active ones. The owner `id` is what `hubspot_owner_id` holds (a string), never the `userId`.
 */
import type { Answer, HandlerContext } from './batch-input.js';
import { hubSpotError } from './errors.js';

/** An owner of the portal. */
export interface StandInOwner {
  readonly id: string;
  readonly userId: number;
  readonly email: string;
  readonly firstName?: string;
  readonly lastName?: string;
  readonly archived?: boolean;
}

/** `GET /crm/v3/owners/{ownerId}`. */
export function getOwner(ctx: HandlerContext, ownerId: string, query: URLSearchParams): Answer {
  const byUserId = query.get('idProperty') === 'userId';
  const archived = query.get('archived') === 'true';
  const owner = ctx.store.owners.find(
    (candidate) =>
      (byUserId ? String(candidate.userId) === ownerId : candidate.id === ownerId) &&
      (candidate.archived ?? false) === archived,
  );
  if (owner === undefined) {
    return { status: 404, body: hubSpotError(`Owner ${ownerId} not found`, 'OBJECT_NOT_FOUND') };
  }
  const at = new Date(ctx.now()).toISOString();
  return {
    status: 200,
    body: {
      id: owner.id,
      email: owner.email,
      type: 'PERSON',
      firstName: owner.firstName ?? '',
      lastName: owner.lastName ?? '',
      userId: owner.userId,
      userIdIncludingInactive: owner.userId,
      createdAt: at,
      updatedAt: at,
      archived: owner.archived ?? false,
      teams: [],
    },
  };
}
