/**
 * The stand-in's users (shared/docs/alerts-and-plays-api.md §6.1, from Pipedrive's v1 reference): `GET
 * /api/v1/users/{id}` (also `/v1/users/{id}`; 2 tokens; there is no v2 users endpoint) answers `{success,
 * data: {id, name, email, active_flag, is_admin, timezone_name, …}}`, 404 for an id of no user. A person's
 * `owner_id` names one. A deactivated user is still answered, with `active_flag: false`.
 */
import type { PdStore } from './store.js';

/** A user as the stand-in holds it. */
export interface PdUser {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly active_flag: boolean;
}

/** The cost of reading a user (the OpenAPI file's `x-token-cost`). */
export const USER_TOKENS = 2;

const held = new WeakMap<PdStore, { next: number; users: PdUser[] }>();

function usersIn(store: PdStore) {
  let entry = held.get(store);
  if (entry === undefined) {
    entry = { next: 1001, users: [] };
    held.set(store, entry);
  }
  return entry;
}

/** Adds a user of the company (active unless said); returns its id, for a person's `owner_id`. */
export function addPdUser(
  store: PdStore,
  user: { email: string; name?: string; active_flag?: boolean },
): number {
  const entry = usersIn(store);
  const id = entry.next++;
  entry.users.push({
    id,
    name: user.name ?? user.email.split('@')[0]!,
    email: user.email,
    active_flag: user.active_flag ?? true,
  });
  return id;
}

type Answer = { status: number; body: object; tokens: number };

/** The answer to a users call, or undefined when `url` is not one. */
export function handleUsers(store: PdStore, method: string, url: URL): Answer | undefined {
  const match = /^\/(?:api\/)?v1\/users\/(\d+)$/.exec(url.pathname);
  if (match === null || method !== 'GET') return undefined;
  const user = usersIn(store).users.find((candidate) => candidate.id === Number(match[1]));
  if (user === undefined)
    return {
      status: 404,
      tokens: USER_TOKENS,
      body: {
        success: false,
        error: 'User not found',
        error_info: 'Please check developers.pipedrive.com',
        data: null,
      },
    };
  return {
    status: 200,
    tokens: USER_TOKENS,
    body: {
      success: true,
      data: {
        ...user,
        default_currency: 'USD',
        locale: 'en_US',
        lang: 1,
        phone: null,
        is_admin: 0,
        role_id: 1,
        timezone_name: 'Europe/London',
        icon_url: null,
        is_you: false,
      },
    },
  };
}
