/**
 * A Salesforce org stand-in over real HTTP on 127.0.0.1, port 0, written from Salesforce's public REST, Bulk
 * API 2.0 and OAuth references (shared/docs/salesforce-api.md): the token endpoint (client credentials, JWT
 * bearer), describe, SOQL with paging, sObject Collections upsert with per-record results, the relationship
 * upsert, record PATCH by Id or external id, Bulk 2.0 ingest, `/limits`, and `Sforce-Limit-Info` on every API
 * answer with the rolling 24-hour allocation. Tests assert on its records and inject the faults an org answers.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyInput } from 'jose';
import { FaultRules, parseJson, readBody, sleep } from '../stand-in-http.js';
import { Sessions } from './auth.js';
import { BulkJobs } from './bulk.js';
import {
  defaultBodyForStatus,
  invalidSessionBody,
  notFoundBody,
  requestLimitBody,
  sfErrors,
} from './errors.js';
import {
  type Answer,
  collectionsUpdate,
  collectionsUpsert,
  describe,
  limits,
  patchById,
  query,
  queryMore,
  type RestContext,
  upsertRow,
} from './rest.js';
import {
  type FieldDefinition,
  type FieldInput,
  field,
  SET_UP_FIELDS,
  SOBJECT_NAMES,
  type SObjectName,
} from './schema.js';
import { isSObject } from './soql.js';
import { OrgStore, type RecordFault, type ValidationRule, type Value } from './store.js';
import { handleTasks, type OrgTask, orgTasks, queryTasks } from './tasks.js';
import { addOrgQueue, addOrgUser } from './users.js';

export { duplicatesDetected, invalidSessionBody, lockError, requestLimitBody, sfErrors } from './errors.js';
export type { FieldDefinition, FieldInput, SObjectName } from './schema.js';
export type { RecordFault, ValidationRule, Value } from './store.js';

/** The rolling window of the daily allocation (§5). */
export const DAY_MS = 24 * 60 * 60 * 1000;
/** Characters of a request's URI plus headers past which Salesforce answers 414 (§5, SOQL). */
export const MAX_URI_CHARS = 16_384;

/** Knobs of the stand-in; every one has a Developer Edition org's default. */
export interface SalesforceStandInOptions {
  /** Clock for the allocation window, sessions and timestamps, epoch ms (default `Date.now`). */
  now?: () => number;
  /** API requests per rolling 24 h (default 15,000: Developer Edition). */
  dailyLimit?: number;
  /** Requests other integrations made in the window, counted in `api-usage` (default 0). */
  otherUsage?: number;
  clientId?: string;
  clientSecret?: string;
  /** The client credentials flow is enabled with a run-as user (default true). */
  clientCredentials?: boolean;
  /** The public key of the certificate uploaded for JWT bearer (default: the flow is not set up). */
  jwtPublicKey?: KeyInput;
  /** Users pre-authorized for JWT bearer (default `['integration@example.com']`). */
  jwtUsers?: readonly string[];
  /** Extra audiences taken in an assertion, beside login.salesforce.com, test.salesforce.com and the org's URL. */
  audiences?: readonly string[];
  /** Session lifetime in ms of `now()` (default: until `expireSessions()`). */
  sessionTtlMs?: number;
  /** Rows per query page when the request does not ask (default 2,000). */
  queryPageSize?: number;
  /** Reads of a closed Bulk job that answer InProgress before it completes (default 1). */
  bulkPollsInProgress?: number;
  /** Add the key and custom fields the salesforce-* templates write (default false: a new org). */
  setUp?: boolean;
}

/** One request as the stand-in answered it. */
export interface StandInCall {
  method: string;
  path: string;
  query: string;
  /** Characters of the path and query as sent (Salesforce recommends ≤ 2,000). */
  uriLength: number;
  status: number;
  body: unknown;
  response: unknown;
  /** Whether it counted against the allocation. */
  counted: boolean;
  /** When it arrived, and when its answer left (`now()`). */
  at: number;
  answeredAt: number;
}

/** A fault answered instead of the real answer, `times` times (default 1), for requests that match. */
export interface FailRule {
  status: number;
  /** Default: Salesforce's body for that status (401 INVALID_SESSION_ID, 403 REQUEST_LIMIT_EXCEEDED, 5xx). */
  body?: unknown;
  headers?: Record<string, string>;
  times?: number;
  /** Matching requests answered for real before this rule answers (default 0). */
  skip?: number;
  match?: { method?: string; pathIncludes?: string };
}

/** A record as tests see it: its Id and every value. */
export type StandInRecord = { Id: string } & Record<string, Value>;

/** A running stand-in. */
export interface SalesforceStandIn {
  /** `http://127.0.0.1:<port>`: the login URL and the instance URL. */
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  records(object: SObjectName): StandInRecord[];
  /** Every Task of the org (tasks.ts), oldest first. */
  tasks(): OrgTask[];
  /** Adds a User (users.ts; active unless said), and Contact's and Lead's `OwnerId`; returns its Id (`005…`). */
  addUser(user: { Email: string; FirstName?: string; LastName?: string; IsActive?: boolean }): string;
  /** Adds a queue that can own Leads (`00G…`); returns its Id. */
  addQueue(queue: { Name: string; Email?: string }): string;
  findBy(object: SObjectName, fieldName: string, value: string): StandInRecord[];
  /** A record typed in the UI: no API call, checked as a save is. Returns its Id. */
  seed(object: SObjectName, values: Record<string, unknown>): string;
  /** A record edited in the UI: no API call, checked as a save is. */
  edit(object: SObjectName, id: string, values: Record<string, unknown>): void;
  /** A record deleted in the UI: no API call; gone from queries. */
  remove(object: SObjectName, id: string): void;
  /** Adds or replaces a field, as an admin does in Setup. */
  defineField(object: SObjectName, input: FieldInput): void;
  removeField(object: SObjectName, name: string): void;
  fields(object: SObjectName): FieldDefinition[];
  addValidationRule(rule: ValidationRule): void;
  /** A duplicate rule matching on `fieldName` (exact, case-insensitive): a save that matches answers DUPLICATES_DETECTED. */
  addDuplicateRule(object: SObjectName, fieldName: string): void;
  failNext(rule: FailRule): void;
  /** A record-level fault (default UNABLE_TO_LOCK_ROW) in collections, rows and Bulk saves. */
  failRecords(fault: RecordFault): void;
  /** Ends every session: the next API call answers 401 INVALID_SESSION_ID. */
  expireSessions(): void;
  /** Tokens granted so far. */
  grants(): number;
  /** The allocation as `Sforce-Limit-Info` would show it now. */
  usage(): { used: number; max: number };
  setOtherUsage(calls: number): void;
  calls(): StandInCall[];
  bulkJobs(): Array<Record<string, unknown>>;
  /** Reads of a closed Bulk job that answer InProgress from now on (a job held running, then let finish). */
  setBulkPollsInProgress(reads: number): void;
  /**
   * Every answer leaves `ms` of real time after its request arrived, the org's own work included (a call
   * whose work takes longer answers when done): a call takes what the benchmarks' ideal counts.
   */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

const API = /^\/services\/data\/(v\d+\.\d)\/(.*)$/;

/** Starts a stand-in; `close()` it in `afterEach`/`finally`. */
export async function startSalesforceStandIn(
  options: SalesforceStandInOptions = {},
): Promise<SalesforceStandIn> {
  const now = options.now ?? Date.now;
  const max = options.dailyLimit ?? 15_000;
  let otherUsage = options.otherUsage ?? 0;
  const counted: number[] = [];
  const used = () => {
    while (counted.length > 0 && counted[0]! <= now() - DAY_MS) counted.shift();
    return counted.length + otherUsage;
  };
  const store = new OrgStore();
  if (options.setUp)
    for (const object of SOBJECT_NAMES)
      for (const input of SET_UP_FIELDS[object]) store.schema[object].set(input.name, field(input));
  const bulk = new BulkJobs(options.bulkPollsInProgress ?? 1);
  const cursors: RestContext['cursors'] = new Map();
  let url = '';
  const clientId = options.clientId ?? `3MVG9${randomBytes(20).toString('base64url')}`;
  const clientSecret = options.clientSecret ?? randomBytes(32).toString('hex').toUpperCase();
  const sessions = new Sessions(
    {
      clientId,
      clientSecret,
      clientCredentials: options.clientCredentials ?? true,
      jwtPublicKey: options.jwtPublicKey,
      jwtUsers: options.jwtUsers ?? ['integration@example.com'],
      audiences: [
        'https://login.salesforce.com',
        'https://test.salesforce.com',
        ...(options.audiences ?? []),
      ],
    },
    () => url,
    now,
    options.sessionTtlMs,
  );
  const calls: StandInCall[] = [];
  const rules = new FaultRules<FailRule>();
  let latencyMs = 0;

  const route = (
    ctx: RestContext,
    method: string,
    rest: string,
    search: URLSearchParams,
    text: string,
    contentType: string | undefined,
  ): Answer => {
    const parts = rest.split('/').map((part) => decodeURIComponent(part));
    const json = () => {
      const parsed = parseJson(text);
      return 'error' in parsed ? undefined : parsed.value;
    };
    if ('error' in parseJson(text) && !contentType?.startsWith('text/csv'))
      return {
        status: 400,
        body: sfErrors(
          `Unexpected character: ${(parseJson(text) as { error: string }).error}`,
          'JSON_PARSER_ERROR',
        ),
      };
    const [a, b, c, d, e] = parts;
    if (method === 'GET' && a === 'limits' && parts.length === 1) return limits(ctx);
    const tasks =
      method === 'GET' && a === 'query' && parts.length === 1
        ? queryTasks(store, search.get('q'), ctx.version)
        : handleTasks(store, method, parts, json());
    if (tasks !== undefined) return tasks;
    if (method === 'GET' && a === 'query' && parts.length === 1) return query(ctx, search.get('q'));
    if (method === 'GET' && a === 'query' && parts.length === 2) return queryMore(ctx, b!);
    if (a === 'sobjects' && b !== undefined) {
      if (method === 'GET' && c === 'describe' && parts.length === 3) return describe(ctx, b);
      if (method === 'PATCH' && parts.length === 3) return patchById(ctx, b, c!, json());
      if (method === 'PATCH' && parts.length === 4) return upsertRow(ctx, b, c!, d!, json());
      if (method === 'GET' && parts.length === 3 && isSObject(b)) {
        const record = store.get(b, c!);
        return record
          ? {
              status: 200,
              body: {
                attributes: { type: b, url: `/services/data/${ctx.version}/sobjects/${b}/${record.Id}` },
                ...record.values,
              },
            }
          : { status: 404, body: notFoundBody() };
      }
    }
    if (method === 'PATCH' && a === 'composite' && b === 'sobjects' && parts.length === 2)
      return collectionsUpdate(ctx, json());
    if (method === 'PATCH' && a === 'composite' && b === 'sobjects' && parts.length === 4)
      return collectionsUpsert(ctx, c!, d!, json());
    if (a === 'jobs' && b === 'ingest') {
      if (method === 'POST' && parts.length === 2) return bulk.create(ctx, json());
      if (method === 'PUT' && d === 'batches' && parts.length === 4)
        return bulk.upload(c!, text, contentType);
      if (method === 'PATCH' && parts.length === 3) return bulk.close(c!, json());
      if (method === 'GET' && parts.length === 3) return bulk.get(ctx, c!);
      if (method === 'GET' && parts.length === 4 && e === undefined) return bulk.results(c!, d!);
    }
    return { status: 404, body: notFoundBody() };
  };

  const answer = async (
    req: IncomingMessage,
    target: URL,
    rawUrl: string,
    text: string | undefined,
  ): Promise<Answer & { headers: Record<string, string>; counted: boolean }> => {
    const method = req.method ?? 'GET';
    if (text === undefined)
      return {
        status: 413,
        body: sfErrors('Request body too large', 'REQUEST_TOO_LARGE'),
        headers: {},
        counted: false,
      };
    if (method === 'POST' && target.pathname === '/services/oauth2/token') {
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      return { ...(await sessions.token(new URLSearchParams(text), basic)), headers: {}, counted: false };
    }
    const api = API.exec(target.pathname);
    if (!api) return { status: 404, body: notFoundBody(), headers: {}, counted: false };
    if (rawUrl.length > MAX_URI_CHARS)
      return { status: 414, body: sfErrors('URI Too Long', 'URI_TOO_LONG'), headers: {}, counted: false };
    const token = /^(?:Bearer|OAuth) (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined || !sessions.valid(token))
      return { status: 401, body: invalidSessionBody(), headers: {}, counted: false };
    // A call past the allocation is refused and not counted; every other one is (§5).
    if (used() >= max) {
      return {
        status: 403,
        body: requestLimitBody(),
        headers: { 'Sforce-Limit-Info': `api-usage=${used()}/${max}` },
        counted: false,
      };
    }
    counted.push(now());
    const headers = { 'Sforce-Limit-Info': `api-usage=${used()}/${max}` };
    const rule = rules.take(method, target.pathname);
    if (rule)
      return {
        status: rule.status,
        body: rule.body ?? defaultBodyForStatus(rule.status),
        headers: { ...headers, ...rule.headers },
        counted: true,
      };
    const batchSize = /batchSize=(\d+)/.exec(String(req.headers['sforce-query-options'] ?? ''))?.[1];
    const ctx: RestContext = {
      store,
      now,
      version: api[1]!,
      pageSize:
        batchSize === undefined
          ? (options.queryPageSize ?? 2_000)
          : Math.min(2_000, Math.max(200, Number(batchSize))),
      limits: () => ({ max, remaining: Math.max(0, max - used()) }),
      cursors,
    };
    return {
      ...route(ctx, method, api[2]!, target.searchParams, text, req.headers['content-type']),
      headers,
      counted: true,
    };
  };

  const server = createServer({ maxHeaderSize: 256 * 1024 }, (req: IncomingMessage, res: ServerResponse) => {
    const at = now();
    const arrived = performance.now();
    const rawUrl = req.url ?? '/';
    const target = new URL(rawUrl, 'http://127.0.0.1');
    let text: string | undefined;
    readBody(req, MAX_BODY_BYTES)
      .then((body) => {
        text = body;
        return answer(req, target, rawUrl, body);
      })
      .catch(
        (error: unknown) =>
          ({
            status: 500,
            body: sfErrors(`Stand-in failure: ${String(error)}`, 'UNKNOWN_EXCEPTION'),
            headers: {},
            counted: false,
          }) as Answer & { headers: Record<string, string>; counted: boolean },
      )
      .then(async (reply) => {
        const waitMs = latencyMs - (performance.now() - arrived);
        if (waitMs > 0) await sleep(waitMs);
        const parsed = text === undefined ? { value: undefined } : parseJson(text);
        calls.push({
          method: req.method ?? 'GET',
          path: target.pathname,
          query: target.search,
          uriLength: rawUrl.length,
          status: reply.status,
          body: 'error' in parsed ? text : parsed.value,
          response: reply.text ?? reply.body,
          counted: reply.counted,
          at,
          answeredAt: now(),
        });
        const payload = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
        res.writeHead(reply.status, {
          ...(payload === ''
            ? {}
            : { 'content-type': reply.contentType ?? 'application/json;charset=UTF-8' }),
          'content-length': String(Buffer.byteLength(payload)),
          ...reply.headers,
        });
        res.end(payload);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sessions.app.audiences = [...sessions.app.audiences, url];

  const view = (record: { Id: string; values: Record<string, Value> }): StandInRecord => ({
    ...record.values,
    Id: record.Id,
  });
  return {
    url,
    clientId,
    clientSecret,
    records: (object) => store.all(object).map(view),
    tasks: () => orgTasks(store),
    addUser: (user) => addOrgUser(store, user),
    addQueue: (queue) => addOrgQueue(store, queue),
    findBy: (object, fieldName, value) => store.findBy(object, fieldName, value).map(view),
    seed: (object, values) => {
      const result = store.write(object, undefined, values, now());
      if (!result.ok)
        throw new TypeError(
          `seed(${object}): ${result.errors.map((e) => `${e.statusCode} ${e.message}`).join('; ')}`,
        );
      return result.id;
    },
    edit: (object, id, values) => {
      const existing = store.get(object, id);
      if (existing === undefined) throw new TypeError(`edit(${object}): no record ${id}`);
      const result = store.write(object, existing, values, now());
      if (!result.ok)
        throw new TypeError(
          `edit(${object}): ${result.errors.map((e) => `${e.statusCode} ${e.message}`).join('; ')}`,
        );
    },
    remove: (object, id) => {
      if (!store.delete(object, id)) throw new TypeError(`remove(${object}): no record ${id}`);
    },
    defineField: (object, input) => {
      store.schema[object].set(input.name, field(input));
    },
    removeField: (object, name) => {
      store.schema[object].delete(name);
    },
    fields: (object) => [...store.schema[object].values()].map((definition) => structuredClone(definition)),
    addValidationRule: (rule) => {
      store.validationRules.push(rule);
    },
    addDuplicateRule: (object, fieldName) => {
      store.duplicateRules.push({ object, field: fieldName });
    },
    failNext: (rule) => {
      rules.add(rule);
    },
    failRecords: (fault) => store.addFault(fault),
    expireSessions: () => sessions.expireAll(),
    grants: () => sessions.grants,
    usage: () => ({ used: used(), max }),
    setOtherUsage: (calls) => {
      otherUsage = calls;
    },
    calls: () => [...calls],
    bulkJobs: () => [...bulk.jobs.values()].map((job) => bulk.info(job)),
    setBulkPollsInProgress: (reads) => {
      bulk.pollsInProgress = reads;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
