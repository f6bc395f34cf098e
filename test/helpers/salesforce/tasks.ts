/**
 * The stand-in's Task object (shared/docs/alerts-and-plays-api.md §5.2, from Salesforce's Task reference):
 * `POST sobjects/Task` (201 `{id, success, errors}`; `Status` and `Priority` required picklists, `WhoId` a
 * Contact or Lead the org holds, a Lead's task without `WhatId`, `ActivityDate` a date), `GET
 * sobjects/Task/{id}`, and the one SOQL shape a client uses to find a task again: `SELECT … FROM Task WHERE
 * f = 'v' AND …` (equalities only; `Description`, a long text area, cannot be filtered). No idempotency
 * header: the same body twice makes two tasks.
 */
import { sfErrors } from './errors.js';
import type { Answer } from './rest.js';
import type { OrgStore } from './store.js';

/** A Task as the stand-in holds it. */
export interface OrgTask {
  readonly Id: string;
  readonly values: Record<string, string | null>;
}

const STATUSES = ['Not Started', 'In Progress', 'Completed', 'Waiting on someone else', 'Deferred'];
const PRIORITIES = ['High', 'Normal', 'Low'];
const FIELDS = ['Subject', 'Description', 'WhoId', 'WhatId', 'OwnerId', 'ActivityDate', 'Status', 'Priority'];

const held = new WeakMap<OrgStore, { next: number; tasks: OrgTask[] }>();

function tasksIn(store: OrgStore) {
  let entry = held.get(store);
  if (entry === undefined) {
    entry = { next: 1, tasks: [] };
    held.set(store, entry);
  }
  return entry;
}

/** Every Task of the org, oldest first. */
export function orgTasks(store: OrgStore): OrgTask[] {
  return tasksIn(store).tasks.map((task) => ({ Id: task.Id, values: { ...task.values } }));
}

function create(store: OrgStore, json: unknown): Answer {
  const input = (json ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(input).find((name) => !FIELDS.includes(name));
  if (unknown !== undefined)
    return {
      status: 400,
      body: sfErrors(`No such column '${unknown}' on sobject of type Task`, 'INVALID_FIELD'),
    };
  const missing = ['Status', 'Priority'].filter(
    (name) => typeof input[name] !== 'string' || input[name] === '',
  );
  if (missing.length > 0)
    return {
      status: 400,
      body: sfErrors(
        `Required fields are missing: [${missing.join(', ')}]`,
        'REQUIRED_FIELD_MISSING',
        missing,
      ),
    };
  if (!STATUSES.includes(String(input.Status)))
    return {
      status: 400,
      body: sfErrors(
        `Status: bad value for restricted picklist field: ${input.Status}`,
        'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
        ['Status'],
      ),
    };
  if (!PRIORITIES.includes(String(input.Priority)))
    return {
      status: 400,
      body: sfErrors(
        `Priority: bad value for restricted picklist field: ${input.Priority}`,
        'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
        ['Priority'],
      ),
    };
  const who = typeof input.WhoId === 'string' ? input.WhoId : undefined;
  if (who !== undefined) {
    const lead = store.get('Lead', who) !== undefined;
    if (store.get('Contact', who) === undefined && !lead)
      return {
        status: 400,
        body: sfErrors('Name ID: id value of incorrect type', 'FIELD_INTEGRITY_EXCEPTION', ['WhoId']),
      };
    if (lead && input.WhatId !== undefined && input.WhatId !== null)
      return {
        status: 400,
        body: sfErrors('A Lead task cannot be related to a record (WhatId)', 'FIELD_INTEGRITY_EXCEPTION', [
          'WhatId',
        ]),
      };
  }
  const date = input.ActivityDate;
  if (date !== undefined && date !== null && (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)))
    return {
      status: 400,
      body: sfErrors(`ActivityDate: value not of required type: ${String(date)}`, 'JSON_PARSER_ERROR'),
    };
  const entry = tasksIn(store);
  const Id = `00T${String(entry.next++).padStart(15, '0')}`;
  const values: Record<string, string | null> = {};
  for (const name of FIELDS) values[name] = typeof input[name] === 'string' ? (input[name] as string) : null;
  entry.tasks.push({ Id, values });
  return { status: 201, body: { id: Id, success: true, errors: [] } };
}

/** The answer to a query over Task (`q` names `FROM Task`), or undefined when it is not one. */
export function queryTasks(store: OrgStore, q: string | null, version: string): Answer | undefined {
  if (q === null || !/\bFROM\s+Task\b/i.test(q)) return undefined;
  const shape =
    /^SELECT\s+(.+?)\s+FROM\s+Task(?:\s+WHERE\s+(.+?))?(?:\s+ORDER\s+BY\s+\w+)?(?:\s+LIMIT\s+\d+)?$/i.exec(
      q.trim(),
    );
  if (shape === null) return { status: 400, body: sfErrors('unexpected token', 'MALFORMED_QUERY') };
  const fields = shape[1]!.split(',').map((field) => field.trim());
  const conditions: Array<[string, string]> = [];
  for (const part of (shape[2] ?? '').split(/\s+AND\s+/i).filter((p) => p !== '')) {
    const eq = /^(\w+)\s*=\s*'((?:[^'\\]|\\.)*)'$/.exec(part.trim());
    if (eq === null) return { status: 400, body: sfErrors(`unexpected token: ${part}`, 'MALFORMED_QUERY') };
    if (eq[1] === 'Description')
      return {
        status: 400,
        body: sfErrors("field 'Description' can not be filtered in a query call", 'INVALID_FIELD'),
      };
    conditions.push([
      eq[1]!,
      eq[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c)),
    ]);
  }
  const records = tasksIn(store)
    .tasks.filter((task) => conditions.every(([name, value]) => task.values[name] === value))
    .map((task) => ({
      attributes: { type: 'Task', url: `/services/data/${version}/sobjects/Task/${task.Id}` },
      ...Object.fromEntries(
        fields.map((field) => [field, field === 'Id' ? task.Id : (task.values[field] ?? null)]),
      ),
    }));
  return { status: 200, body: { totalSize: records.length, done: true, records } };
}

/** The answer to a Task sObject call (`parts` after the version: `sobjects`, `Task`, …), or undefined. */
export function handleTasks(
  store: OrgStore,
  method: string,
  parts: readonly string[],
  json: unknown,
): Answer | undefined {
  if (parts[0] !== 'sobjects' || parts[1] !== 'Task') return undefined;
  if (method === 'POST' && parts.length === 2) return create(store, json);
  if (method === 'GET' && parts.length === 3) {
    const task = tasksIn(store).tasks.find((t) => t.Id === parts[2]);
    return task === undefined
      ? { status: 404, body: sfErrors('The requested resource does not exist', 'NOT_FOUND') }
      : { status: 200, body: { attributes: { type: 'Task' }, Id: task.Id, ...task.values } };
  }
  return undefined;
}
