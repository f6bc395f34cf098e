/**
 * A HubSpot CRM stand-in over real HTTP on 127.0.0.1, port 0, written from HubSpot's public API reference
 * (shared/docs/hubspot-api.md): contacts and companies (batch upsert, read, create, update, search), properties,
 * contact→company associations v4, Bearer tokens with scopes, and the 10-second, daily and search limits with
 * their headers and 429 bodies. Tests assert on its state and inject the faults HubSpot can answer.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultRules, parseJson, readBody, sleep } from '../stand-in-http.js';
import type { Answer, HandlerContext } from './batch-input.js';
import {
  defaultBodyForStatus,
  hubSpotError,
  missingScopesBody,
  rateLimitBody,
  unauthorizedBody,
} from './errors.js';
import type { StandInOwner } from './owners.js';
import type { CrmObjectType, PropertyDefinition, PropertyDefinitionInput } from './properties.js';
import { RateWindows } from './rate-limits.js';
import { route } from './routes.js';
import { CrmStore } from './store.js';
import { type StandInTask, standInTasks } from './tasks.js';
import { checkPropertyValues } from './values.js';

export {
  missingScopesBody,
  type RateLimitPolicy,
  rateLimitBody,
  unauthorizedBody,
} from './errors.js';
export type { StandInOwner } from './owners.js';
export type { CrmObjectType, PropertyDefinition, PropertyDefinitionInput } from './properties.js';

/** Every scope of §4: objects and schemas of contacts and companies, read and write. */
export const ALL_SCOPES: readonly string[] = [
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.schemas.companies.read',
  'crm.schemas.companies.write',
  'crm.objects.owners.read',
];

/** Knobs of the stand-in; every one has HubSpot's Free/Starter default. */
export interface HubSpotStandInOptions {
  /** The one accepted Bearer token (default: a random `pat-na1-…`). */
  token?: string;
  /** Granted scopes (default: `ALL_SCOPES`); a call needing a missing one answers 403 MISSING_SCOPES. */
  scopes?: readonly string[];
  /** Requests per rolling 10 s (default 100). */
  tenSecondly?: number;
  /** Requests per UTC day of `now()` (default 250,000). */
  daily?: number;
  /** Search requests per rolling second (default 5). */
  searchPerSecond?: number;
  /** Clock for the windows and timestamps, epoch ms (default `Date.now`). */
  now?: () => number;
  /** Path prefix before `/crm/...` (default ''). Date-versioned paths (`/crm/objects/2026-03/...`) always work. */
  basePath?: string;
  /** Send `Retry-After` (seconds) on 429s (default false: HubSpot does not promise it, §5). */
  retryAfter?: boolean;
  /** How long a write takes to show in search, in ms of `now()` (default 0: at once). */
  searchIndexLagMs?: number;
  /** The portal id HubSpot names in some messages (default 21939747). */
  portalId?: number;
}

/** A record as tests see it: every value, system ones (hs_object_id, createdate, last-modified) included. */
export interface StandInRecord {
  id: string;
  properties: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** One request as the stand-in answered it. */
export interface StandInCall {
  method: string;
  /** The path as sent, without the query. */
  path: string;
  query: string;
  status: number;
  /** The request body, parsed when it is JSON. */
  body: unknown;
  /** The answer's body. */
  response: unknown;
  /** `now()` when the request arrived. */
  at: number;
}

/** A fault to answer instead of the real one, `times` times (default 1), for requests that match. */
export interface FailRule {
  status: number;
  /** Default: HubSpot's body for that status (401, 403, 423, 429 TEN_SECONDLY_ROLLING, 5xx). */
  body?: unknown;
  headers?: Record<string, string>;
  times?: number;
  match?: { method?: string; pathIncludes?: string };
}

/** A running stand-in. */
export interface HubSpotStandIn {
  /** `http://127.0.0.1:<port>` plus `basePath`. */
  readonly url: string;
  readonly token: string;
  records(type: CrmObjectType): StandInRecord[];
  findBy(type: CrmObjectType, property: string, value: string): StandInRecord | undefined;
  associations(): Array<{ contactId: string; companyId: string; typeId: number }>;
  /** Every task (tasks.ts), oldest first. */
  tasks(): StandInTask[];
  propertyDefinitions(type: CrmObjectType): PropertyDefinition[];
  calls(): StandInCall[];
  /** A record "typed by a sales rep": no API call, no limits; its values are checked like HubSpot's UI would. */
  seed(type: CrmObjectType, properties: Record<string, string>): string;
  /** Adds (or replaces) a property definition, e.g. a portal that already has `hooksync_domain`. */
  defineProperty(type: CrmObjectType, definition: PropertyDefinitionInput): void;
  /** A rep's edit of a record's values (`""` clears one); no API call, no limits. */
  edit(type: CrmObjectType, id: string, properties: Record<string, string>): void;
  /** A rep's archiving (deleting) of a record; no API call. */
  archive(type: CrmObjectType, id: string): void;
  /** A rep's link of a contact to its primary company; no API call. */
  associatePrimary(contactId: string, companyId: string): void;
  failNext(rule: FailRule): void;
  /** An owner of the portal (`GET /crm/v3/owners/{id}`); no API call. */
  addOwner(owner: StandInOwner): void;
  /** Delays every answer by `ms` of real time. */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Starts a stand-in; `close()` it in `afterEach`/`finally`. */
export async function startHubSpotStandIn(options: HubSpotStandInOptions = {}): Promise<HubSpotStandIn> {
  const now = options.now ?? Date.now;
  const token = options.token ?? `pat-na1-${randomBytes(16).toString('hex')}`;
  const scopes = new Set(options.scopes ?? ALL_SCOPES);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const store = new CrmStore(now(), options.searchIndexLagMs ?? 0);
  const windows = new RateWindows({
    tenSecondly: options.tenSecondly ?? 100,
    daily: options.daily ?? 250_000,
    searchPerSecond: options.searchPerSecond ?? 5,
    now,
  });
  const ctx: HandlerContext = {
    store,
    portalId: options.portalId ?? 21_939_747,
    now,
  };
  const calls: StandInCall[] = [];
  const rules = new FaultRules<FailRule>();
  let latencyMs = 0;

  const answer = async (
    req: IncomingMessage,
    url: URL,
    text: string | undefined,
  ): Promise<Answer & { headers: Record<string, string> }> => {
    const method = req.method ?? 'GET';
    if (latencyMs > 0) await sleep(latencyMs);
    if (text === undefined) {
      return { status: 413, body: hubSpotError('Request body too large', 'VALIDATION_ERROR'), headers: {} };
    }
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : '';
    if (req.headers.authorization !== `Bearer ${token}`)
      return { status: 401, body: unauthorizedBody(), headers: {} };
    const matched = route(method, path, url.searchParams);
    // Every authenticated request counts, errors included (§5); search only in its own window (§2).
    const admission = matched?.search ? windows.admitSearch() : windows.admitApi();
    if (!admission.admitted) {
      const retryAfter: Record<string, string> = options.retryAfter
        ? { 'Retry-After': String(admission.retryAfterSeconds) }
        : {};
      return {
        status: 429,
        body: rateLimitBody(admission.policy),
        headers: { ...admission.headers, ...retryAfter },
      };
    }
    const rule = rules.take(method, url.pathname);
    if (rule) {
      return {
        status: rule.status,
        body: rule.body ?? defaultBodyForStatus(rule.status),
        headers: { ...admission.headers, ...rule.headers },
      };
    }
    if (!matched) {
      return {
        status: 404,
        body: hubSpotError(`Unable to find a route for ${method} ${url.pathname}`, 'OBJECT_NOT_FOUND'),
        headers: admission.headers,
      };
    }
    const lacking = matched.scopes.find((anyOf) => !anyOf.some((scope) => scopes.has(scope)));
    if (lacking) return { status: 403, body: missingScopesBody(lacking), headers: admission.headers };
    const parsed = parseJson(text);
    if ('error' in parsed) {
      return {
        status: 400,
        body: hubSpotError(`Invalid input JSON on line 1: ${parsed.error}`, 'VALIDATION_ERROR'),
        headers: admission.headers,
      };
    }
    return { ...matched.handle(ctx, parsed.value), headers: admission.headers };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const at = now();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let text: string | undefined;
    readBody(req, MAX_BODY_BYTES)
      .then((body) => {
        text = body;
        return answer(req, url, body);
      })
      .catch((error: unknown) => ({
        status: 500,
        body: hubSpotError(`Stand-in failure: ${String(error)}`, 'INTERNAL_ERROR'),
        headers: {},
      }))
      .then((reply) => {
        const parsed = text === undefined ? { value: undefined } : parseJson(text);
        calls.push({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.search,
          status: reply.status,
          body: 'error' in parsed ? text : parsed.value,
          response: reply.body,
          at,
        });
        const json = JSON.stringify(reply.body);
        res.writeHead(reply.status, {
          'content-type': 'application/json;charset=utf-8',
          'content-length': String(Buffer.byteLength(json)),
          ...reply.headers,
        });
        res.end(json);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const view = (
    record: { id: string; createdAtMs: number; updatedAtMs: number },
    values: Record<string, string>,
  ) => ({
    id: record.id,
    properties: values,
    createdAt: new Date(record.createdAtMs).toISOString(),
    updatedAt: new Date(record.updatedAtMs).toISOString(),
  });

  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    token,
    records: (type) => store.all(type).map((record) => view(record, store.valuesOf(record))),
    findBy: (type, property, value) => {
      const record = store.findBy(type, property, value);
      return record ? view(record, store.valuesOf(record)) : undefined;
    },
    associations: () => store.associations(),
    tasks: () => standInTasks(store),
    propertyDefinitions: (type) =>
      [...store.definitions[type].values()].map((definition) => structuredClone(definition)),
    calls: () => [...calls],
    seed: (type, properties) => {
      const errors = checkPropertyValues(properties, store.definitions[type], ctx.portalId);
      if (errors.length > 0) throw new TypeError(`seed(${type}): ${errors.map((e) => e.message).join('; ')}`);
      const conflict = store.uniqueConflict(type, properties);
      if (conflict)
        throw new TypeError(
          `seed(${type}): ${conflict.name} ${conflict.value} is held by ${conflict.existingId}`,
        );
      return store.create(type, properties, now()).id;
    },
    defineProperty: (type, definition) => {
      store.define(type, definition, now());
    },
    edit: (type, id, properties) => {
      const record = store.get(type, id);
      if (record === undefined) throw new TypeError(`edit(${type}): no record ${id}`);
      store.write(record, properties, now());
    },
    archive: (type, id) => {
      if (!store.archive(type, id)) throw new TypeError(`archive(${type}): no record ${id}`);
    },
    associatePrimary: (contactId, companyId) => {
      store.associate(contactId, companyId, 1);
    },
    failNext: (rule) => {
      rules.add(rule);
    },
    addOwner: (owner) => {
      store.owners.push(owner);
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

/**
 * The portal of a destination that `destinations setup` has run for (setup has tests of its own): the two
 * unique keys and every hooksync_* property of the mapping, as text. For tests and benchmarks that start there.
 */
export function defineSetUpProperties(standIn: HubSpotStandIn): void {
  for (const [type, name, unique] of [
    ['companies', 'hooksync_domain', true],
    ['companies', 'hooksync_company_id', false],
    ['contacts', 'hooksync_linkedin_url', true],
    ['contacts', 'hooksync_person_id', false],
    ['contacts', 'hooksync_job_change_status', false],
    ['contacts', 'hooksync_previous_company', false],
    ['contacts', 'hooksync_previous_jobtitle', false],
  ] as const) {
    standIn.defineProperty(type, {
      name,
      type: 'string',
      fieldType: 'text',
      ...(unique ? { hasUniqueValue: true } : {}),
    });
  }
}
