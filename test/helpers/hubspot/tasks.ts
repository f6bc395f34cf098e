/**
 * The stand-in's tasks object (shared/docs/alerts-and-plays-api.md §4.2, from HubSpot's tasks guide):
 * `POST /crm/v3/objects/tasks` with `hs_timestamp` required (400 VALIDATION_ERROR naming it otherwise) and
 * associations in the same call (HUBSPOT_DEFINED 204 to a contact, 192 to a company; the record must
 * exist), `GET …/tasks/{id}`, and `POST …/tasks/search` (EQ filters, its own per-second limit). No
 * idempotency key: the same body twice makes two tasks, as HubSpot does.
 */
import type { Answer, HandlerContext } from './batch-input.js';
import { hubSpotError } from './errors.js';
import type { Route } from './routes.js';
import type { CrmStore } from './store.js';

/** A task as the stand-in holds it. */
export interface StandInTask {
  readonly id: string;
  readonly properties: Record<string, string>;
  /** Associated records: the contact (204) or company (192) ids. */
  readonly associations: ReadonlyArray<{ readonly toId: string; readonly typeId: number }>;
  readonly createdAt: string;
}

const TASK_TYPES = new Map([
  [204, 'contacts'],
  [192, 'companies'],
] as const);

const byStore = new WeakMap<CrmStore, { next: number; tasks: StandInTask[] }>();

function tasksOf(store: CrmStore) {
  let held = byStore.get(store);
  if (held === undefined) {
    held = { next: 91_000_000_001, tasks: [] };
    byStore.set(store, held);
  }
  return held;
}

/** Every task of the portal, oldest first. */
export function standInTasks(store: CrmStore): StandInTask[] {
  return tasksOf(store).tasks.map((task) => structuredClone(task));
}

function invalid(message: string, context?: Record<string, string[]>): Answer {
  return { status: 400, body: hubSpotError(message, 'VALIDATION_ERROR', context ? { context } : {}) };
}

function view(task: StandInTask, wanted: readonly string[] | undefined) {
  const names = wanted ?? ['hs_task_subject', 'hs_timestamp', 'hubspot_owner_id'];
  const properties: Record<string, string | null> = { hs_object_id: task.id };
  for (const name of names) properties[name] = task.properties[name] ?? null;
  return { id: task.id, properties, createdAt: task.createdAt, updatedAt: task.createdAt, archived: false };
}

function create(ctx: HandlerContext, body: unknown): Answer {
  const input = (body ?? {}) as { properties?: unknown; associations?: unknown };
  const raw = input.properties ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return invalid('properties must be an object');
  const properties: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === null || value === undefined) continue;
    properties[name] = String(value);
  }
  if (properties.hs_timestamp === undefined || properties.hs_timestamp === '') {
    return invalid('Error creating TASK. Some required properties were not set.', {
      properties: ['hs_timestamp'],
    });
  }
  const timestamp = /^\d+$/.test(properties.hs_timestamp)
    ? Number(properties.hs_timestamp)
    : Date.parse(properties.hs_timestamp);
  if (!Number.isFinite(timestamp)) return invalid(`Property values were not valid: hs_timestamp`);
  const associations: Array<{ toId: string; typeId: number }> = [];
  for (const item of Array.isArray(input.associations) ? input.associations : []) {
    const to = String((item as { to?: { id?: unknown } })?.to?.id ?? '');
    const types = (item as { types?: unknown }).types;
    for (const type of Array.isArray(types) ? types : []) {
      const typeId = Number((type as { associationTypeId?: unknown }).associationTypeId);
      const object = TASK_TYPES.get(typeId as 204 | 192);
      if (
        object === undefined ||
        (type as { associationCategory?: unknown }).associationCategory !== 'HUBSPOT_DEFINED'
      ) {
        return invalid(`${typeId} is not a valid association type between TASK and the object`);
      }
      if (ctx.store.get(object, to) === undefined) {
        return invalid(`One or more associations are invalid: ${object} ${to} does not exist`);
      }
      associations.push({ toId: to, typeId });
    }
  }
  const held = tasksOf(ctx.store);
  const task: StandInTask = {
    id: String(held.next++),
    properties: { ...properties, hs_timestamp: new Date(timestamp).toISOString() },
    associations,
    createdAt: new Date(ctx.now()).toISOString(),
  };
  held.tasks.push(task);
  return { status: 201, body: view(task, Object.keys(task.properties)) };
}

function search(ctx: HandlerContext, body: unknown): Answer {
  const input = (body ?? {}) as { filterGroups?: unknown; properties?: unknown; limit?: unknown };
  const groups = Array.isArray(input.filterGroups) ? input.filterGroups : [];
  const limit = typeof input.limit === 'number' ? input.limit : 10;
  if (limit > 200) return invalid('limit must be at most 200');
  const matches = (task: StandInTask, group: unknown): boolean => {
    const filters = (group as { filters?: unknown })?.filters;
    return (Array.isArray(filters) ? filters : []).every((filter) => {
      const { propertyName, operator, value } = filter as Record<string, unknown>;
      if (operator !== 'EQ') return false;
      return (task.properties[String(propertyName)] ?? '').toLowerCase() === String(value).toLowerCase();
    });
  };
  const found = tasksOf(ctx.store).tasks.filter(
    (task) => groups.length === 0 || groups.some((group) => matches(task, group)),
  );
  const wanted = Array.isArray(input.properties) ? input.properties.map(String) : undefined;
  return {
    status: 200,
    body: { total: found.length, results: found.slice(0, limit).map((task) => view(task, wanted)) },
  };
}

function read(ctx: HandlerContext, id: string, query: URLSearchParams): Answer {
  const task = tasksOf(ctx.store).tasks.find((t) => t.id === id);
  if (task === undefined) return { status: 404, body: hubSpotError('Object not found', 'OBJECT_NOT_FOUND') };
  const wanted = query.get('properties')?.split(',');
  return { status: 200, body: view(task, wanted) };
}

/** The route of a tasks request (`rest`: the path after `/tasks`), or undefined. */
export function taskRoute(
  method: string,
  rest: string | undefined,
  query: URLSearchParams,
): Route | undefined {
  // The tasks guide lists the contacts scopes for tasks.
  const write = [['crm.objects.contacts.write']];
  const read_ = [['crm.objects.contacts.read']];
  if (method === 'POST' && rest === undefined) return { scopes: write, search: false, handle: create };
  if (method === 'POST' && rest === 'search') return { scopes: read_, search: true, handle: search };
  if (method === 'GET' && rest !== undefined && !rest.includes('/')) {
    return { scopes: read_, search: false, handle: (c) => read(c, decodeURIComponent(rest), query) };
  }
  return undefined;
}
