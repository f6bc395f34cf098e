/**
 * The stand-in's activities, API v2 (shared/docs/alerts-and-plays-api.md §6.2, from Pipedrive's
 * openapi-v2.yaml): `POST /api/v2/activities` (5 tokens; `subject`, `type` as an ActivityType key_string,
 * `owner_id` the assignee, `person_id`, `due_date` YYYY-MM-DD, `note`, `done`), `GET /api/v2/activities`
 * filtered by `person_id`, `owner_id` and `done` (10 tokens), `GET /api/v2/activities/{id}` (1 token).
 * No idempotency key: the same body twice makes two activities.
 */
import type { PdStore } from './store.js';

/** An activity as the stand-in holds it. */
export interface PdActivity {
  readonly id: number;
  readonly subject: string;
  readonly type: string;
  readonly owner_id: number;
  readonly person_id: number | null;
  readonly due_date: string | null;
  readonly note: string | null;
  readonly done: boolean;
  readonly add_time: string;
}

/** ActivityType key_strings of a new account (the doc expects `task` among them). */
export const ACTIVITY_TYPES = ['call', 'meeting', 'task', 'deadline', 'email', 'lunch'] as const;

const held = new WeakMap<PdStore, { next: number; activities: PdActivity[] }>();

function activitiesIn(store: PdStore) {
  let entry = held.get(store);
  if (entry === undefined) {
    entry = { next: 1, activities: [] };
    held.set(store, entry);
  }
  return entry;
}

/** Every activity, oldest first. */
export function pdActivities(store: PdStore): PdActivity[] {
  return activitiesIn(store).activities.map((activity) => ({ ...activity }));
}

type Answer = { status: number; body: object; tokens: number };

function problem(status: number, message: string, code: string): Answer {
  return {
    status,
    tokens: 0,
    body: {
      success: false,
      error: message,
      code,
      error_info: 'Please check developers.pipedrive.com',
      data: null,
    },
  };
}

function intOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The answer to an activities call, or undefined when `url` is not one. */
export function handleActivities(
  store: PdStore,
  method: string,
  url: URL,
  body: unknown,
  now: () => number,
): Answer | undefined {
  const match = /^\/api\/v2\/activities(?:\/(\d+))?$/.exec(url.pathname);
  if (match === null) return undefined;
  const entry = activitiesIn(store);
  if (method === 'GET' && match[1] !== undefined) {
    const found = entry.activities.find((activity) => activity.id === Number(match[1]));
    return found === undefined
      ? problem(404, 'Activity not found', 'ERR_NOT_FOUND')
      : { status: 200, tokens: 1, body: { success: true, data: found } };
  }
  if (method === 'GET') {
    const filter = (name: string) => url.searchParams.get(name);
    const found = entry.activities.filter(
      (activity) =>
        (filter('person_id') === null || String(activity.person_id) === filter('person_id')) &&
        (filter('owner_id') === null || String(activity.owner_id) === filter('owner_id')) &&
        (filter('done') === null || String(activity.done) === filter('done')),
    );
    const limit = Math.min(500, Number(filter('limit') ?? 100));
    return {
      status: 200,
      tokens: 10,
      body: { success: true, data: found.slice(0, limit), additional_data: { next_cursor: null } },
    };
  }
  if (method !== 'POST' || match[1] !== undefined) return problem(404, 'Route not found', 'ERR_NOT_FOUND');
  const input = (body ?? {}) as Record<string, unknown>;
  if (typeof input.subject !== 'string' || input.subject.trim() === '')
    return problem(400, '[ERR_INVALID_INPUT]: subject is required', 'ERR_INVALID_INPUT');
  const type = typeof input.type === 'string' ? input.type : 'call';
  if (!(ACTIVITY_TYPES as readonly string[]).includes(type))
    return problem(
      400,
      `[ERR_INVALID_INPUT]: type ${type} is not an active activity type`,
      'ERR_INVALID_INPUT',
    );
  const owner = intOf(input.owner_id);
  if (input.owner_id !== undefined && owner === undefined)
    return problem(400, '[ERR_INVALID_INPUT]: owner_id must be an integer', 'ERR_INVALID_INPUT');
  if ('user_id' in input)
    return problem(
      400,
      '[ERR_INVALID_INPUT]: "user_id" is not allowed (v2 names the assignee owner_id)',
      'ERR_INVALID_INPUT',
    );
  const person = intOf(input.person_id);
  if (
    input.person_id !== undefined &&
    (person === undefined || store.records.persons.get(person) === undefined)
  )
    return problem(404, 'Person not found', 'ERR_NOT_FOUND');
  const due = input.due_date;
  if (due !== undefined && (typeof due !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(due)))
    return problem(400, '[ERR_INVALID_INPUT]: due_date must be YYYY-MM-DD', 'ERR_INVALID_INPUT');
  const activity: PdActivity = {
    id: entry.next++,
    subject: input.subject,
    type,
    owner_id: owner ?? 1,
    person_id: person ?? null,
    due_date: (due as string | undefined) ?? null,
    note: typeof input.note === 'string' ? input.note : null,
    done: input.done === true,
    add_time: new Date(now()).toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  entry.activities.push(activity);
  return { status: 200, tokens: 5, body: { success: true, data: activity } };
}
