/**
 * Pipedrive as the CRM core sees it (`crm/crm-adapter.ts`): no upsert and no batch write (`writeBatch: 1`).
 * A record's id comes from what the job carried, from the destination's key → id map (`crm_record_ids`: a
 * GET by id, 1 token, never a search), or from search with `exact_match` for keys the map does not know
 * (20 tokens), each hit confirmed by a GET of its key field because a custom-field hit carries no field
 * keys (§3). Known records are PATCHed, unknown ones POSTed; a person's organization is its `org_id` in the
 * person's own write (`links: 'in-write'`). Fields are resolved by name once (`pipedrive-fields.ts`).
 */
import { z } from 'zod';
import { CrmError } from '../../errors.js';
import { checkAnswer } from '../crm/check-answer.js';
import type {
  CrmAdapter,
  CrmObject,
  HeldRecord,
  SearchCandidate,
  SearchField,
  WriteRequest,
  WriteResult,
} from '../crm/crm-adapter.js';
import type { CrmHttp } from '../crm/crm-http.js';
import {
  normalizeDomain,
  normalizeEmail,
  normalizeLinkedinUrl,
  normalizeName,
} from '../crm/normalize-keys.js';
import { KeptMap } from './kept-map.js';
import { TOKEN_COST } from './pipedrive-answer.js';
import {
  customKeys,
  decodeRecord,
  definitionsOf,
  encodeBody,
  FIELDS_PATH,
  type PipedriveFields,
  RECORDS_PATH,
  readFields,
} from './pipedrive-fields.js';

/** What the adapter needs besides its client. */
export interface PipedriveAdapterOptions {
  readonly client: CrmHttp;
  /** The destination's key → id map (`crm_record_ids`). */
  lookUp(object: CrmObject, keys: readonly string[]): Promise<Map<string, string>>;
  /** The field names holding the keys: the organization's domain, the person's LinkedIn URL. */
  readonly orgKeyField: string;
  readonly personKeyField: string;
  /** The tokens the client's calls spent so far (the dry run's cost). */
  spent(): number;
  readonly now: () => number;
}

/** How long a record read stays the one an overwrite compares with (a record named by the next events). */
const HELD_FOR_MS = 60_000;
/** Records and organization names kept at most (a batch's worth many times over). */
const KEPT = 10_000;

/**
 * Hits of a search by name read at most (each a GET, 1 token): a website's label (`acme`) is in many names,
 * and reading them all made a new organization cost 80 tokens and more in a company of many Acmes.
 */
const NAME_HITS = 3;

/**
 * How long a create's answer is awaited once sent, whatever the attempt's timeout: its id, recorded in the
 * key → id map, is what keeps the next event needing the key from creating the record again.
 */
const CREATE_ANSWER_MS = 30_000;

/** Keys one `GET /{id}?custom_fields=` may name (SDK: at most 15). */
const CUSTOM_FIELDS_PER_GET = 15;

const recordSchema = z.object({
  data: z.object({ id: z.number(), is_deleted: z.boolean().optional(), name: z.string().nullish() }).loose(),
});
type RawRecord = z.output<typeof recordSchema>['data'];
const searchSchema = z.object({
  data: z.object({ items: z.array(z.object({ item: z.object({ id: z.number() }).loose() })) }),
});

const SEARCH_TYPE: Record<CrmObject, string> = { companies: 'organization', contacts: 'person' };

/** An adapter with its fields loaded lazily and kept (`reloadFields` after setup created some). */
export interface PipedriveAdapter extends CrmAdapter {
  fields(object: CrmObject, signal: AbortSignal): Promise<PipedriveFields>;
  reloadFields(): void;
}

/** Creates the adapter. */
export function createPipedriveAdapter(options: PipedriveAdapterOptions): PipedriveAdapter {
  const { client } = options;
  // The adapter's state: its three caches, each a KeptMap (kept-map.ts).
  /** The field lists, read once (a failed read is asked again; `reloadFields` after setup). */
  const loaded = new KeptMap<CrmObject, Promise<PipedriveFields>>({ max: 2 });
  /** The records last read, by `object:id`: an overwrite compares with them instead of reading again. */
  const reads = new KeptMap<string, { readonly record: RawRecord; readonly custom: ReadonlySet<string> }>({
    max: KEPT,
    ttlMs: HELD_FOR_MS,
    now: options.now,
  });
  /** The organizations' names by id (a person's organization compared by name in a plan). */
  const orgNames = new KeptMap<number, string>({ max: KEPT });
  const fields = (object: CrmObject, signal: AbortSignal) => {
    let held = loaded.get(object);
    if (held === undefined) {
      held = client
        .request('GET', FIELDS_PATH[object], undefined, signal)
        .then((answer) => readFields(answer, `GET ${FIELDS_PATH[object]}`));
      held.catch(() => loaded.delete(object));
      loaded.set(object, held);
    }
    return held;
  };
  /** The field name a key lives in, checked to exist: a missing one is one clear line, and a pause. */
  const keyField = async (object: CrmObject, idProperty: string, signal: AbortSignal) => {
    const field = (await fields(object, signal)).get(idProperty);
    if (field === undefined) {
      const which = object === 'companies' ? 'organization' : 'person';
      const setting = object === 'companies' ? 'org_key_field' : 'person_key_field';
      throw new CrmError(null, {
        kind: 'pause',
        error: `Pipedrive has no ${which} field "${idProperty}": create it (hooksync destinations setup <name>) or set ${setting}`,
      });
    }
    return field;
  };

  const remember = (object: CrmObject, record: RawRecord, custom: readonly string[]) => {
    reads.set(`${object}:${record.id}`, { record, custom: new Set(custom) });
    if (object === 'companies' && typeof record.name === 'string') orgNames.set(record.id, record.name);
  };
  /** The name of organization `id` when no other organization seen has it (else the id compares). */
  const orgName = (id: unknown): string | undefined => {
    const name = typeof id === 'number' ? orgNames.get(id) : undefined;
    if (name === undefined) return undefined;
    let holders = 0;
    for (const other of orgNames.values()) if (other === name) holders += 1;
    return holders === 1 ? name : undefined;
  };

  /** GET one record by id with `names`' custom values; undefined when it is gone (404, deleted). */
  const getRaw = async (object: CrmObject, id: string, names: readonly string[], signal: AbortSignal) => {
    const all = await fields(object, signal);
    const keys = customKeys(all, names).slice(0, CUSTOM_FIELDS_PER_GET);
    const path = `${RECORDS_PATH[object]}/${encodeURIComponent(id)}${keys.length > 0 ? `?custom_fields=${keys.join(',')}` : ''}`;
    let answer: Awaited<ReturnType<CrmHttp['request']>>;
    try {
      answer = await client.request('GET', path, undefined, signal);
    } catch (error) {
      if (error instanceof CrmError && error.status === 404) return undefined;
      throw error;
    }
    const body = checkAnswer(recordSchema, answer, {
      crm: 'Pipedrive',
      call: `GET ${RECORDS_PATH[object]}/{id}`,
    });
    if (body.data.is_deleted === true) return undefined;
    remember(object, body.data, keys);
    return body.data;
  };
  const getById = async (object: CrmObject, id: string, names: readonly string[], signal: AbortSignal) => {
    const record = await getRaw(object, id, names, signal);
    if (record === undefined) return undefined;
    const properties = decodeRecord(await fields(object, signal), record, names);
    const organization = [...(await fields(object, signal)).values()].find((f) => f.key === 'org_id');
    const name = orgName(record.org_id);
    if (organization !== undefined && properties[organization.name] !== undefined && name !== undefined)
      properties[organization.name] = name;
    return { id: String(record.id), properties, source: record } satisfies HeldRecord;
  };

  const read: CrmAdapter['read'] = async (object, idProperty, keys, properties, signal) => {
    const found = new Map<string, HeldRecord>();
    if (keys.length === 0) return found;
    // By key: only what the map knows, by id (a key the map does not know is searched by the core, once).
    const ids =
      idProperty === undefined ? new Map(keys.map((id) => [id, id])) : await options.lookUp(object, keys);
    const names = idProperty === undefined ? properties : [...new Set([...properties, idProperty])];
    for (const [key, id] of ids) {
      const record = await getById(object, id, names, signal);
      if (record !== undefined) found.set(key, record);
    }
    return found;
  };

  /** What the record holds: a read of the last minute that fetched every custom field named, else a GET (1 token); null when it is gone. */
  const held = async (object: CrmObject, id: string, names: readonly string[], signal: AbortSignal) => {
    const kept = reads.get(`${object}:${id}`);
    reads.delete(`${object}:${id}`);
    const wanted = customKeys(await fields(object, signal), names).slice(0, CUSTOM_FIELDS_PER_GET);
    if (kept !== undefined && wanted.every((key) => kept.custom.has(key))) return kept.record;
    return (await getRaw(object, id, names, signal)) ?? null;
  };

  /**
   * One record: PATCHed by its id (carried, adopted or mapped), else POSTed. The core read it before
   * planning (`request.current`) when a field is fill-empty or for a dry run: its plan sends only what
   * differs. Under overwrite the core did not read: the record is read here (a GET, 1 token, against a
   * PATCH's 5; or a read of the last minute) and only the values it does not hold yet are sent (nothing to
   * change: no call). A mapped id
   * that is gone is created anew.
   */
  const writeOne = async (
    object: CrmObject,
    request: WriteRequest,
    signal: AbortSignal,
  ): Promise<WriteResult> => {
    const all = await fields(object, signal);
    await keyField(object, request.idProperty, signal);
    const read = request.current === undefined;
    let id = read
      ? (request.id ?? (await options.lookUp(object, [request.key])).get(request.key))
      : (request.current?.id ?? request.id);
    let properties = request.properties;
    let companyId = request.company?.id;
    let emails: unknown[] = [];
    if (id !== undefined) {
      const record = read
        ? await held(object, id, Object.keys(properties), signal)
        : request.current === null
          ? null
          : (request.current.source as RawRecord);
      if (record === null && request.id !== undefined)
        return { ok: false, error: `Pipedrive holds no ${SEARCH_TYPE[object]} ${id} (deleted or merged)` };
      if (record === null) id = undefined;
      else {
        const holds = read ? decodeRecord(all, record, Object.keys(properties)) : {};
        emails = Array.isArray(record.emails) ? record.emails : [];
        properties = Object.fromEntries(
          Object.entries(properties).filter(([name, value]) => {
            const key = all.get(name)?.key;
            // The link and the e-mail list are Pipedrive's own: an org_id or an e-mail held is not resent.
            if (key === 'org_id') return companyId !== undefined && Number(companyId) !== record.org_id;
            if (key === 'email')
              return !emails.some(
                (e) => String((e as { value?: unknown }).value).toLowerCase() === value.toLowerCase(),
              );
            return !read || holds[name] !== value;
          }),
        );
        if (companyId !== undefined && Number(companyId) === record.org_id) companyId = undefined;
      }
    }
    const body = encodeBody(all, properties, companyId);
    if (id !== undefined && Object.keys(body).length === 0)
      return { ok: true, id, created: false, unchanged: true };
    // A new e-mail becomes the primary one; those held stay (a PATCH replaces the whole list).
    if (Array.isArray(body.emails) && emails.length > 0)
      body.emails = [...body.emails, ...emails.map((e) => ({ ...(e as object), primary: false }))];
    const path =
      id === undefined ? RECORDS_PATH[object] : `${RECORDS_PATH[object]}/${encodeURIComponent(id)}`;
    if (id === undefined && body.name === undefined) body.name = request.key;
    // A create's answer is awaited even past the attempt's timeout: lost, its record would be made twice.
    const answer = await client.request(
      id === undefined ? 'POST' : 'PATCH',
      path,
      body,
      signal,
      id === undefined ? AbortSignal.timeout(CREATE_ANSWER_MS) : signal,
    );
    const written = checkAnswer(recordSchema, answer, {
      crm: 'Pipedrive',
      call: `${id === undefined ? 'POST' : 'PATCH'} ${RECORDS_PATH[object]}`,
    });
    if (object === 'companies' && typeof written.data.name === 'string')
      orgNames.set(written.data.id, written.data.name);
    return { ok: true, id: String(written.data.id), created: id === undefined };
  };

  /** One search by name (`fields=name`, 20 tokens): its hits of `object`'s type. */
  const byName = async (object: CrmObject, term: string, exact: boolean, signal: AbortSignal) => {
    const limit = String(NAME_HITS);
    const query = new URLSearchParams({ term, fields: 'name', exact_match: String(exact), limit });
    const answer = await client.request('GET', `${RECORDS_PATH[object]}/search?${query}`, undefined, signal);
    const body = checkAnswer(searchSchema, answer, {
      crm: 'Pipedrive',
      call: `GET ${RECORDS_PATH[object]}/search`,
    });
    return body.data.items
      .map(({ item }) => item)
      .filter((item) => item.type === undefined || item.type === SEARCH_TYPE[object])
      .slice(0, NAME_HITS);
  };

  /**
   * What a team typed without hooksync's keys: an organization by its website's host (website is no
   * searchable field: a name search by the domain's first label, each hit's website read, 1 token), or by
   * its exact name; a person by its full name (`exact_match`), with its organization and e-mails.
   */
  const searchTyped = async (
    object: CrmObject,
    field: 'website' | 'name' | 'fullName',
    values: readonly string[],
    keyProperty: string,
    signal: AbortSignal,
  ): Promise<Map<string, SearchCandidate[]>> => {
    const found = new Map<string, SearchCandidate[]>();
    const all = await fields(object, signal);
    /** A hit's record with its value of the key field (1 token): one holding another key is another's. */
    const withKey = async (id: string) => {
      const record = await getRaw(object, id, [keyProperty], signal);
      if (record === undefined) return undefined;
      const held = decodeRecord(all, record, [keyProperty])[keyProperty];
      return { record, key: held?.trim().toLowerCase() || undefined };
    };
    for (const value of values) {
      const candidates: SearchCandidate[] = [];
      if (object === 'companies' && field !== 'fullName') {
        const term = field === 'website' ? (value.split('.')[0] ?? '').replaceAll('-', ' ') : value;
        if (term.trim().length < 2) continue;
        for (const item of await byName(object, term, field === 'name', signal)) {
          const hit = await withKey(String(item.id));
          if (hit === undefined) continue;
          const { record, key } = hit;
          const domain = normalizeDomain(typeof record.website === 'string' ? record.website : undefined);
          const fits =
            field === 'website'
              ? domain === value
              : normalizeName(typeof record.name === 'string' ? record.name : undefined) ===
                normalizeName(value);
          if (fits)
            candidates.push({
              id: String(record.id),
              key,
              ...(domain !== undefined ? { domain } : {}),
            });
        }
      } else if (object === 'contacts' && field === 'fullName') {
        const [first, last] = value.split('\t');
        const wanted = `${normalizeName(first)} ${normalizeName(last)}`;
        for (const item of await byName(object, `${first} ${last}`, true, signal)) {
          if (normalizeName(typeof item.name === 'string' ? item.name : undefined) !== wanted) continue;
          const organization = item.organization as { id?: unknown } | null | undefined;
          const emails = Array.isArray(item.emails) ? item.emails : [];
          const email = emails.map((e) => normalizeEmail(String(e))).find((e) => e !== undefined);
          const hit = await withKey(String(item.id));
          if (hit === undefined) continue;
          candidates.push({
            id: String(item.id),
            key: hit.key,
            ...(typeof organization?.id === 'number' ? { companyId: String(organization.id) } : {}),
            ...(email !== undefined ? { email } : {}),
          });
        }
      }
      if (candidates.length > 0) found.set(value, candidates);
    }
    return found;
  };

  const search = async (
    object: CrmObject,
    field: SearchField,
    values: readonly string[],
    keyProperty: string,
    signal: AbortSignal,
  ): Promise<Map<string, SearchCandidate[]>> => {
    if (field === 'website' || field === 'name' || field === 'fullName')
      return searchTyped(object, field, values, keyProperty, signal);
    const found = new Map<string, SearchCandidate[]>();
    // Where each value is looked for: the key field (custom) or the e-mails, and how a held value normalizes.
    const name =
      field === 'domain' ? options.orgKeyField : field === 'email' ? undefined : options.personKeyField;
    const normalize =
      field === 'domain' ? normalizeDomain : field === 'email' ? normalizeEmail : normalizeLinkedinUrl;
    const all = await fields(object, signal);
    const emailName = [...all.values()].find((f) => f.key === 'email')?.name;
    const held = name ?? emailName;
    if (held === undefined || (name !== undefined && !all.has(name))) return found;
    for (const value of values) {
      const query = new URLSearchParams({
        term: value,
        fields: field === 'email' ? 'email' : 'custom_fields',
        exact_match: 'true',
        limit: '10',
      });
      const answer = await client.request(
        'GET',
        `${RECORDS_PATH[object]}/search?${query}`,
        undefined,
        signal,
      );
      const body = checkAnswer(searchSchema, answer, {
        crm: 'Pipedrive',
        call: `GET ${RECORDS_PATH[object]}/search`,
      });
      const candidates: SearchCandidate[] = [];
      for (const { item } of body.data.items) {
        if (item.type !== undefined && item.type !== SEARCH_TYPE[object]) continue;
        // A hit may come from any searchable field holding the same text: confirmed by its key field, or its
        // e-mails, as the record itself holds them (the GET), never as the search item says (issue 43).
        const record = await getRaw(object, String(item.id), [held], signal);
        if (record === undefined) continue;
        const values =
          field === 'email'
            ? (Array.isArray(record.emails) ? record.emails : []).map(
                (e) => (e as { value?: unknown })?.value,
              )
            : [decodeRecord(all, record, [held])[held]];
        if (!values.some((v) => typeof v === 'string' && normalize(v) === value)) continue;
        // The record holds this very key: it is this key's, not another's.
        const id = String(record.id);
        if (!candidates.some((c) => c.id === id)) candidates.push({ id, key: undefined });
      }
      if (candidates.length > 0) found.set(value, candidates);
    }
    return found;
  };

  return {
    name: 'Pipedrive',
    limits: { writeBatch: 1, readBatch: 1 },
    readsByKey: false,
    tokens: { perWrite: TOKEN_COST.write, spent: options.spent },
    read,
    async write(object, requests, signal) {
      const results: WriteResult[] = [];
      for (const request of requests) results.push(await writeOne(object, request, signal));
      return results;
    },
    search,
    fields,
    reloadFields() {
      loaded.clear();
    },
    async fieldDefinitions(object, signal) {
      return definitionsOf(await fields(object, signal));
    },
    async check(signal) {
      for (const object of ['companies', 'contacts'] as const) await fields(object, signal);
      return 'the token reads person and organization fields';
    },
  };
}
