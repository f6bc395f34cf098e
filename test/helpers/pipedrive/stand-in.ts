/**
 * A Pipedrive stand-in over real HTTP on 127.0.0.1, port 0, written from Pipedrive's public API reference
 * (shared/docs/pipedrive-api.md): API v2 persons and organizations (GET by id, list, POST, PATCH, search
 * with `exact_match` over an index that lags writes), the v1 field lists (40-character hash keys) and field
 * creation, `x-api-token` auth (the gateway's 401), token costs per call with the daily budget in
 * `x-daily-ratelimit-token-*` headers, the burst window (2 s) and search's own, both 429s, and Cloudflare's
 * 403 HTML page for a client that keeps sending through 429s. Errors are `{success:false, error, …}`.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleActivities } from './activities.js';
import { type PdField, type PdObject, type PdRecord, PdStore, SEARCHABLE_TYPES, splitName } from './store.js';
import { handleUsers } from './users.js';

export type { PdField, PdObject, PdRecord } from './store.js';

/** Token costs (v2; v1 fields) — the `x-token-cost` values of the OpenAPI files (§1). */
export const TOKEN_COSTS = { get: 1, list: 10, write: 5, search: 20, fields: 20, createField: 10 } as const;

/** Knobs; every one has a Lite, one-seat default. */
export interface PipedriveStandInOptions {
  /** The accepted API token (default `pd-test-token`). */
  token?: string;
  /** Requests per rolling 2 s per token (default 20, Lite). */
  burst?: number;
  /** Search requests per rolling 2 s (default 10). */
  searchBurst?: number;
  /** Tokens per day (default 30,000: Lite × 1 seat). */
  dailyTokens?: number;
  /** How long a write stays invisible to search, ms of `now()` (default 1,000). */
  indexLagMs?: number;
  /** Requests sent while limited, past which Cloudflare answers 403 HTML (default 3). */
  ignoredLimitedRequests?: number;
  /** How long Cloudflare's block lasts, ms (default 60,000). */
  blockMs?: number;
  /** Clock, epoch ms (default Date.now). */
  now?: () => number;
}

/** One call as the stand-in saw it. */
export interface SeenCall {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly tokens: number;
}

export interface PipedriveStandIn {
  readonly url: string;
  readonly token: string;
  readonly store: PdStore;
  readonly calls: SeenCall[];
  /** Tokens spent today. */
  spent(): number;
  /** Answers the next matching call (`sent`: its request body matches too) with `status` and `body` instead (once). */
  failNext(
    match: { method?: string; path: RegExp; sent?: RegExp },
    status: number,
    body: string | object,
  ): void;
  /**
   * Handles the next matching call (a create is made) but loses its answer (once): answers `status` with an
   * error body, or drops the connection (`'drop'`); `then` runs once the call was handled.
   */
  loseAnswerToNext(
    match: { method?: string; path: RegExp },
    answer: number | 'drop',
    then?: () => void,
  ): void;
  /** Handles the next matching call at once (a create is made) and sends its answer `ms` later (once). */
  delayAnswerToNext(match: { method?: string; path: RegExp }, ms: number): void;
  /** Holds every answer this long before the call is handled (a process killed while it waits). */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

const HASH = /^[0-9a-f]{40}$/;
const CLOUDFLARE_PAGE = `<!DOCTYPE html>
<html><head><title>Attention Required! | Cloudflare</title></head>
<body><h1>Sorry, you have been blocked</h1><p>You are unable to access pipedrive.com</p>
<p>Cloudflare Ray ID: 0000000000000000</p></body></html>`;

class HttpAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: object,
  ) {
    super(String(status));
  }
}

function invalid(message: string): HttpAnswer {
  return new HttpAnswer(400, {
    success: false,
    error: `[ERR_INVALID_INPUT]: ${message}`,
    code: 'ERR_INVALID_INPUT',
    error_info: 'Please check developers.pipedrive.com',
    data: null,
    additional_data: null,
  });
}

function notFound(what: string): HttpAnswer {
  return new HttpAnswer(404, {
    success: false,
    error: `${what} not found`,
    code: 'ERR_NOT_FOUND',
    error_info: 'Please check developers.pipedrive.com',
    data: null,
    additional_data: null,
  });
}

const PERSON_KEYS = new Set([
  'name',
  'first_name',
  'last_name',
  'owner_id',
  'org_id',
  'emails',
  'phones',
  'visible_to',
  'label_ids',
  'custom_fields',
  'job_title',
]);
const ORG_KEYS = new Set([
  'name',
  'owner_id',
  'address',
  'website',
  'linkedin',
  'industry',
  'annual_revenue',
  'employee_count',
  'visible_to',
  'label_ids',
  'custom_fields',
]);

/** Starts the stand-in. */
export async function startPipedriveStandIn(
  options: PipedriveStandInOptions = {},
): Promise<PipedriveStandIn> {
  const now = options.now ?? Date.now;
  const token = options.token ?? 'pd-test-token';
  const burst = options.burst ?? 20;
  const searchBurst = options.searchBurst ?? 10;
  const dailyTokens = options.dailyTokens ?? 30_000;
  const store = new PdStore(now, options.indexLagMs ?? 1_000);
  let latencyMs = 0;
  const calls: SeenCall[] = [];
  const sent: number[] = [];
  const searches: number[] = [];
  let day = Math.floor(now() / 86_400_000);
  let spent = 0;
  let limitedUntil = 0;
  let ignored = 0;
  let blockedUntil = 0;
  const faults: Array<{
    method?: string;
    path: RegExp;
    sent?: RegExp;
    status: number;
    body: string | object;
  }> = [];
  const lost: Array<{ method?: string; path: RegExp; answer: number | 'drop'; then?: () => void }> = [];
  const delayed: Array<{ method?: string; path: RegExp; ms: number }> = [];

  const remaining = () => Math.max(0, dailyTokens - spent);
  const dailyHeaders = (res: ServerResponse) => {
    res.setHeader('x-daily-ratelimit-token-limit', String(dailyTokens));
    res.setHeader('x-daily-ratelimit-token-remaining', String(remaining()));
  };
  const json = (res: ServerResponse, status: number, body: object) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body));
  };

  const validateCustom = (object: PdObject, value: unknown): Record<string, unknown> => {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw invalid('"custom_fields" must be an object');
    for (const [key, v] of Object.entries(value)) {
      const field = store.fields[object].find((f) => f.key === key && f.edit_flag);
      if (field === undefined) throw invalid(`Unknown custom field: field_code "${key}"`);
      if (v === null) continue;
      checkValue(field, v, `custom_fields.${key}`);
    }
    return value as Record<string, unknown>;
  };
  const checkValue = (field: PdField, v: unknown, where: string) => {
    if (['varchar', 'varchar_auto', 'phone'].includes(field.field_type)) {
      if (typeof v !== 'string') throw invalid(`"${where}" must be a string`);
      if (v.length > 255)
        throw invalid(`"${where}" length must be less than or equal to 255 characters long`);
    } else if (field.field_type === 'text') {
      if (typeof v !== 'string') throw invalid(`"${where}" must be a string`);
    } else if (field.field_type === 'double') {
      if (typeof v !== 'number') throw invalid(`"${where}" must be a number`);
    } else if (field.field_type === 'enum') {
      if (typeof v !== 'number' || !field.options?.some((o) => o.id === v))
        throw invalid(`"${where}" must be one of the field's option ids`);
    } else if (field.field_type === 'date') {
      if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v))
        throw invalid(`"${where}" must be a date YYYY-MM-DD`);
    }
  };

  /** Validates a v2 create/update body (strict types, no coercion) and returns what to store. */
  const checkBody = (object: PdObject, body: unknown, creating: boolean): Record<string, unknown> => {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw invalid('the body must be an object');
    const allowed = object === 'persons' ? PERSON_KEYS : ORG_KEYS;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) {
      if (!allowed.has(key)) throw invalid(`"${key}" is not allowed`);
      if (key === 'custom_fields') out.custom_fields = validateCustom(object, value);
      else if (key === 'job_title') {
        if (!store.fields.persons.some((f) => f.key === 'job_title'))
          throw new HttpAnswer(403, {
            success: false,
            error: 'Contact sync fields are not available',
            code: 'ERR_FORBIDDEN',
            data: null,
            additional_data: null,
          });
        out[key] = value;
      } else if (key === 'emails' || key === 'phones') {
        if (!Array.isArray(value) || value.some((item) => typeof item?.value !== 'string'))
          throw invalid(`"${key}" must be an array of {value, primary, label}`);
        out[key] = value.map((item: { value: string; primary?: boolean; label?: string }, at: number) => ({
          value: item.value,
          primary: item.primary ?? at === 0,
          label: item.label ?? 'work',
        }));
      } else if (key === 'org_id') {
        if (value !== null && (typeof value !== 'number' || !store.records.organizations.has(value)))
          throw invalid('"org_id" must be the id of an organization');
        out[key] = value;
      } else if (['owner_id', 'visible_to', 'employee_count', 'industry'].includes(key)) {
        if (value !== null && !Number.isInteger(value)) throw invalid(`"${key}" must be a number`);
        if (
          key === 'industry' &&
          value !== null &&
          !store.field('organizations', 'Industry')!.options!.some((o) => o.id === value)
        )
          throw invalid('"industry" must be one of the field\'s option ids');
        out[key] = value;
      } else if (key === 'address') {
        if (
          value !== null &&
          (typeof value !== 'object' || typeof (value as { value?: unknown }).value !== 'string')
        )
          throw invalid('"address" must be an object with value');
        out[key] = value;
      } else if (['name', 'first_name', 'last_name', 'website', 'linkedin'].includes(key)) {
        if (typeof value !== 'string') throw invalid(`"${key}" must be a string`);
        if (key === 'name' && value.trim() === '') throw invalid('"name" is not allowed to be empty');
        out[key] = value;
      } else out[key] = value;
    }
    if (
      object === 'persons' &&
      out.name === undefined &&
      typeof out.first_name === 'string' &&
      typeof out.last_name === 'string'
    )
      out.name = `${out.first_name} ${out.last_name}`;
    if (
      object === 'persons' &&
      typeof out.name === 'string' &&
      out.first_name === undefined &&
      out.last_name === undefined
    )
      Object.assign(out, splitName(out.name));
    if (creating && typeof out.name !== 'string') throw invalid('"name" is required');
    return out;
  };

  const view = (object: PdObject, record: PdRecord, only: readonly string[] | undefined) => {
    const custom: Record<string, unknown> = {};
    for (const field of store.fields[object])
      if (field.edit_flag && (only === undefined || only.includes(field.key)))
        custom[field.key] = record.custom_fields[field.key] ?? null;
    const base =
      object === 'persons'
        ? { emails: [], phones: [], org_id: null, first_name: null, last_name: null }
        : { address: null, website: null, linkedin: null, industry: null, employee_count: null };
    return { ...base, ...record, custom_fields: custom };
  };

  const searchItem = (object: PdObject, record: PdRecord) => {
    const custom = store.fields[object]
      .filter((f) => f.edit_flag && SEARCHABLE_TYPES.has(f.field_type) && record.custom_fields[f.key] != null)
      .map((f) => String(record.custom_fields[f.key]));
    if (object === 'organizations')
      return {
        id: record.id,
        type: 'organization',
        name: record.name,
        address: (record.address as { value?: string } | null)?.value ?? null,
        visible_to: 3,
        owner: { id: record.owner_id },
        custom_fields: custom,
        notes: [],
        update_time: record.update_time,
      };
    const org =
      typeof record.org_id === 'number' ? store.records.organizations.get(record.org_id) : undefined;
    const emails = ((record.emails as Array<{ value: string }> | undefined) ?? []).map((e) => e.value);
    return {
      id: record.id,
      type: 'person',
      name: record.name,
      phones: [],
      emails,
      primary_email: emails[0] ?? null,
      visible_to: 3,
      owner: { id: record.owner_id },
      organization: org === undefined ? null : { id: org.id, name: org.name, address: null },
      custom_fields: custom,
      notes: [],
      update_time: record.update_time,
    };
  };

  const search = (object: PdObject, query: URLSearchParams) => {
    const term = (query.get('term') ?? '').trim();
    const exact = query.get('exact_match') === 'true';
    if (term.length < (exact ? 1 : 2)) throw invalid('"term" length must be at least 2 characters long');
    const all =
      object === 'persons'
        ? ['email', 'phone', 'name', 'notes', 'custom_fields']
        : ['name', 'address', 'notes', 'custom_fields'];
    const fields = query.get('fields')?.split(',') ?? all;
    for (const f of fields) if (!all.includes(f)) throw invalid(`"fields" must be one of ${all.join(', ')}`);
    const wanted = term.toLowerCase();
    const matches = (value: unknown) => {
      if (value === null || value === undefined) return false;
      const text = String(value).toLowerCase();
      return exact ? text === wanted : text.includes(wanted);
    };
    const items = [];
    for (const record of store.live(object)) {
      if (!store.indexed(object, record.id)) continue;
      const values: unknown[] = [];
      if (fields.includes('name')) values.push(record.name);
      if (fields.includes('email'))
        values.push(...((record.emails as Array<{ value: string }> | undefined) ?? []).map((e) => e.value));
      if (fields.includes('address')) values.push((record.address as { value?: string } | null)?.value);
      if (fields.includes('custom_fields'))
        for (const f of store.fields[object])
          if (f.edit_flag && SEARCHABLE_TYPES.has(f.field_type)) values.push(record.custom_fields[f.key]);
      if (values.some(matches)) items.push({ result_score: 1, item: searchItem(object, record) });
    }
    return { success: true, data: { items }, additional_data: { next_cursor: null } };
  };

  const handle = (
    method: string,
    url: URL,
    body: unknown,
  ): { status: number; body: object; tokens: number } => {
    const path = url.pathname;
    const activity = handleActivities(store, method, url, body, now);
    if (activity !== undefined) return activity;
    const user = handleUsers(store, method, url);
    if (user !== undefined) return user;
    const fieldList = /^\/(?:api\/)?v1\/(person|organization)Fields$/.exec(path);
    if (fieldList !== null) {
      const object: PdObject = fieldList[1] === 'person' ? 'persons' : 'organizations';
      if (method === 'GET')
        return {
          status: 200,
          tokens: TOKEN_COSTS.fields,
          body: {
            success: true,
            data: store.fields[object],
            additional_data: { pagination: { start: 0, limit: 500, more_items_in_collection: false } },
          },
        };
      if (method === 'POST') {
        const input = body as { name?: unknown; field_type?: unknown; options?: Array<{ label: string }> };
        if (typeof input?.name !== 'string' || typeof input.field_type !== 'string')
          throw invalid('"name" and "field_type" are required');
        const field = store.addField(
          object,
          input.name,
          input.field_type,
          (input.options ?? []).map((o) => o.label),
        );
        return { status: 200, tokens: TOKEN_COSTS.createField, body: { success: true, data: field } };
      }
    }
    const v2 = /^\/api\/v2\/(persons|organizations)(?:\/(search|\d+))?$/.exec(path);
    if (v2 === null) throw notFound('Route');
    const object = v2[1] as PdObject;
    const what = object === 'persons' ? 'Person' : 'Organization';
    if (v2[2] === 'search' && method === 'GET')
      return { status: 200, tokens: TOKEN_COSTS.search, body: search(object, url.searchParams) };
    if (v2[2] === undefined && method === 'GET') {
      const query = url.searchParams;
      const limit = Number(query.get('limit') ?? 100);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500)
        throw invalid('"limit" must be between 1 and 500');
      const offset = Number(Buffer.from(query.get('cursor') ?? 'MA==', 'base64').toString() || 0);
      const ids = query.get('ids')?.split(',').map(Number);
      if (ids !== undefined && ids.length > 100)
        throw invalid('"ids" must contain less than or equal to 100 items');
      const only = query.get('custom_fields')?.split(',');
      if (only !== undefined && only.length > 15)
        throw invalid('"custom_fields" must contain less than or equal to 15 items');
      const sortBy = query.get('sort_by') ?? 'id';
      if (!['id', 'update_time', 'add_time'].includes(sortBy))
        throw invalid('"sort_by" must be one of [id, update_time, add_time]');
      // A saved filter takes precedence over owner_id, org_id and ids (the v2 reference).
      const filterId = query.get('filter_id');
      const filter = filterId === null ? undefined : store.filters.get(Number(filterId));
      if (filterId !== null && filter?.object !== object) throw notFound('Filter');
      const orgId = query.get('org_id');
      const ownerId = query.get('owner_id');
      const all = store
        .live(object)
        .filter((r) =>
          filter !== undefined
            ? filter.keeps(r)
            : (ids === undefined || ids.includes(r.id)) &&
              (orgId === null || r.org_id === Number(orgId)) &&
              (ownerId === null || r.owner_id === Number(ownerId)),
        )
        .sort((a, b) => (sortBy === 'id' ? a.id - b.id : String(a[sortBy]).localeCompare(String(b[sortBy]))));
      const page = all.slice(offset, offset + limit);
      const next =
        offset + limit < all.length ? Buffer.from(String(offset + limit)).toString('base64') : null;
      return {
        status: 200,
        tokens: TOKEN_COSTS.list,
        body: {
          success: true,
          data: page.map((r) => view(object, r, only)),
          additional_data: { next_cursor: next },
        },
      };
    }
    if (v2[2] === undefined && method === 'POST') {
      const values = checkBody(object, body, true);
      const record = store.insert(object, { custom_fields: {}, ...values } as PdRecord);
      return {
        status: 200,
        tokens: TOKEN_COSTS.write,
        body: { success: true, data: view(object, record, undefined) },
      };
    }
    const id = Number(v2[2]);
    const record = store.records[object].get(id);
    if (method === 'GET') {
      if (record === undefined) throw notFound(what);
      const only = url.searchParams.get('custom_fields')?.split(',');
      if (only !== undefined && only.length > 15)
        throw invalid('"custom_fields" must contain less than or equal to 15 items');
      return {
        status: 200,
        tokens: TOKEN_COSTS.get,
        body: { success: true, data: view(object, record, only) },
      };
    }
    if (method === 'PATCH') {
      if (record === undefined || record.is_deleted) throw notFound(what);
      const values = checkBody(object, body, false);
      const { custom_fields: custom, ...rest } = values as { custom_fields?: Record<string, unknown> };
      Object.assign(record, rest);
      for (const [key, value] of Object.entries(custom ?? {})) record.custom_fields[key] = value;
      store.touch(object, record);
      return {
        status: 200,
        tokens: TOKEN_COSTS.write,
        body: { success: true, data: view(object, record, undefined) },
      };
    }
    throw notFound('Route');
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => (latencyMs > 0 ? setTimeout(respond, latencyMs) : respond()));
    const respond = () => {
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const seen = (status: number, tokens: number) =>
        calls.push({ method, path: url.pathname + url.search, status, tokens });
      const t = now();
      if (Math.floor(t / 86_400_000) !== day) {
        day = Math.floor(t / 86_400_000);
        spent = 0;
      }
      if (t < blockedUntil) {
        res.statusCode = 403;
        res.setHeader('content-type', 'text/html; charset=UTF-8');
        res.end(CLOUDFLARE_PAGE);
        return seen(403, 0);
      }
      if (req.headers['x-api-token'] !== token) {
        res.setHeader('x-401-by-gw', 'true');
        json(res, 401, {
          success: false,
          error: 'unauthorized access',
          errorCode: 401,
          error_info: 'Please check developers.pipedrive.com',
        });
        return seen(401, 0);
      }
      const limited = (status: number, body: object, retryAfter: number) => {
        if (t < limitedUntil) ignored += 1;
        limitedUntil = Math.max(limitedUntil, t + retryAfter * 1000);
        if (ignored > (options.ignoredLimitedRequests ?? 3)) {
          blockedUntil = t + (options.blockMs ?? 60_000);
          ignored = 0;
          res.statusCode = 403;
          res.setHeader('content-type', 'text/html; charset=UTF-8');
          res.end(CLOUDFLARE_PAGE);
          return seen(403, 0);
        }
        res.setHeader('retry-after', String(retryAfter));
        dailyHeaders(res);
        json(res, status, body);
        seen(status, 0);
      };
      if (t >= limitedUntil) ignored = 0;
      while (sent.length > 0 && sent[0]! <= t - 2_000) sent.shift();
      while (searches.length > 0 && searches[0]! <= t - 2_000) searches.shift();
      const isSearch = url.pathname.endsWith('/search');
      res.setHeader('x-ratelimit-limit', String(burst));
      if (sent.length >= burst || (isSearch && searches.length >= searchBurst)) {
        res.setHeader('x-ratelimit-remaining', '0');
        res.setHeader('x-ratelimit-reset', '2');
        return limited(
          429,
          {
            success: false,
            error: 'Request over limit',
            errorCode: 429,
            error_info: 'Please check developers.pipedrive.com',
          },
          2,
        );
      }
      sent.push(t);
      if (isSearch) searches.push(t);
      res.setHeader('x-ratelimit-remaining', String(burst - sent.length));
      res.setHeader('x-ratelimit-reset', '2');
      const fault = faults.findIndex(
        (f) =>
          (f.method === undefined || f.method === method) &&
          f.path.test(url.pathname) &&
          (f.sent === undefined || f.sent.test(Buffer.concat(chunks).toString('utf8'))),
      );
      if (fault >= 0) {
        const [f] = faults.splice(fault, 1);
        res.statusCode = f!.status;
        dailyHeaders(res);
        if (typeof f!.body === 'string') res.end(f!.body);
        else json(res, f!.status, f!.body);
        return seen(f!.status, 0);
      }
      let parsed: unknown;
      try {
        parsed = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        dailyHeaders(res);
        json(res, 400, {
          success: false,
          error: 'Invalid JSON',
          code: 'ERR_INVALID_INPUT',
          data: null,
          additional_data: null,
        });
        return seen(400, 0);
      }
      let answer: { status: number; body: object; tokens: number };
      try {
        answer = handle(method, url, parsed);
      } catch (error) {
        if (!(error instanceof HttpAnswer)) throw error;
        answer = { status: error.status, body: error.body, tokens: 1 };
      }
      if (answer.tokens > remaining()) {
        const midnight = (day + 1) * 86_400_000;
        return limited(
          429,
          { success: false, error: 'daily request budget exceeded', errorCode: 429 },
          Math.ceil((midnight - t) / 1000),
        );
      }
      spent += answer.tokens;
      const lose = lost.findIndex(
        (l) => (l.method === undefined || l.method === method) && l.path.test(url.pathname),
      );
      if (lose >= 0) {
        const [l] = lost.splice(lose, 1);
        l!.then?.();
        if (l!.answer === 'drop') {
          res.destroy();
          return seen(0, answer.tokens);
        }
        dailyHeaders(res);
        json(res, l!.answer, {
          success: false,
          error: 'Gateway error',
          error_info: 'Please check developers.pipedrive.com',
          data: null,
          additional_data: null,
        });
        return seen(l!.answer, answer.tokens);
      }
      const delay = delayed.findIndex(
        (d) => (d.method === undefined || d.method === method) && d.path.test(url.pathname),
      );
      const send = () => {
        if (res.destroyed) return;
        dailyHeaders(res);
        json(res, answer.status, answer.body);
      };
      if (delay >= 0) setTimeout(send, delayed.splice(delay, 1)[0]!.ms);
      else send();
      seen(answer.status, answer.tokens);
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    store,
    calls,
    spent: () => spent,
    setLatency(ms) {
      latencyMs = ms;
    },
    failNext(match, status, body) {
      faults.push({
        ...(match.method !== undefined ? { method: match.method } : {}),
        path: match.path,
        ...(match.sent !== undefined ? { sent: match.sent } : {}),
        status,
        body,
      });
    },
    delayAnswerToNext(match, ms) {
      delayed.push({ ...(match.method !== undefined ? { method: match.method } : {}), path: match.path, ms });
    },
    loseAnswerToNext(match, answer, then) {
      lost.push({
        ...(match.method !== undefined ? { method: match.method } : {}),
        path: match.path,
        answer,
        ...(then !== undefined ? { then } : {}),
      });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Whether `key` looks like a custom field's key (a 40-character hash). */
export const isFieldHash = (key: string) => HASH.test(key);
