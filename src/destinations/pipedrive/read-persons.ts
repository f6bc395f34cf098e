/**
 * A Pipedrive account's persons as a watch reads them (`from.pipedrive`, docs/watches.md), page by page
 * through a client of the destination's own on its shared pace: `GET /api/v2/persons` (10 tokens a page of up
 * to 500, paged with `cursor` until `additional_data.next_cursor` is null), narrowed by a saved filter
 * (`filter_id`) or an owner (`owner_id`) when the watch gives one. Fields are named as the pipedrive-persons
 * template names them ("Email", "LinkedIn URL"), read once a reading from `/api/v1/personFields` (20 tokens).
 * Each person's company domain is its organization's key field ("Domain", the destination's
 * `org_key_field`), else its `website`: the page's organizations read at once (`ids`, 10 tokens each 100).
 * Every answer is read under the core's size cap and checked with zod; a page is all that is held at once.
 */
import { z } from 'zod';
import { boundOutsideText } from '../../contract/outside-text.js';
import { CrmError } from '../../errors.js';
import { checkAnswer } from '../crm/check-answer.js';
import type { CrmHttp } from '../crm/crm-http.js';
import { normalizeDomain } from '../crm/normalize-keys.js';
import type { ContactReader, ContactReaderDeps, ContactRow, WatchSourceType } from '../destination-type.js';
import {
  customKeys,
  decodeRecord,
  FIELDS_PATH,
  type PipedriveFields,
  RECORDS_PATH,
  readFields,
} from './pipedrive-fields.js';
import { PIPEDRIVE_PERSON_ID_KEY } from './pipedrive-tasks.js';

/** Persons a page: the list's maximum (a page costs 10 tokens whatever its size). */
export const PERSONS_PAGE = 500;
/** Organizations one `ids` call reads at most. */
const ORGS_PER_CALL = 100;
/** Custom fields `custom_fields=` takes at most; more are read whole. */
const MAX_CUSTOM_KEYS = 15;
/** A call of the reader gives up after this long (then the cycle stops, naming the CRM's problem). */
export const READ_TIMEOUT_MS = 60_000;
/** Pages one reading follows at most: 50 million persons; an account that pages on past it stops the reading. */
export const MAX_SOURCE_PAGES = 100_000;

/** A person field's name as the watch's map and carry give it: the field's own name, as Pipedrive shows it. */
export const PIPEDRIVE_FIELD_NAME = /^\S(?:.{0,253}\S)?$/;

const userId = z.int().positive().max(2_147_483_647);

/** A watch's `from.pipedrive`: the destination, and a saved filter or an owner (not both: the filter wins). */
const pipedriveSourceSchema = z
  .strictObject({
    destination: z.string().min(1),
    filter_id: userId.optional(),
    owner_id: userId.optional(),
  })
  .refine((source) => source.filter_id === undefined || source.owner_id === undefined, {
    message: 'takes filter_id or owner_id, not both (Pipedrive applies the filter only)',
  });

/** A watch's `from.pipedrive`, validated. */
export type PipedriveSourceQuery = z.output<typeof pipedriveSourceSchema>;

/** Pipedrive as a watch source: its `from.pipedrive` and its field names (the reader is the destination's). */
export const PIPEDRIVE_SOURCE: WatchSourceType<PipedriveSourceQuery> = {
  crm: 'Pipedrive',
  schema: pipedriveSourceSchema,
  fieldName: PIPEDRIVE_FIELD_NAME,
  fieldNoun: 'Pipedrive person field',
};

const id = z.union([z.int(), z.string().regex(/^\d+$/)]).transform(Number);
const pageSchema = z.object({
  data: z.array(
    z.looseObject({ id, org_id: id.nullish(), custom_fields: z.record(z.string(), z.unknown()).nullish() }),
  ),
  additional_data: z.object({ next_cursor: z.string().nullish() }).nullish(),
});
const orgsSchema = z.object({
  data: z.array(
    z.looseObject({
      id,
      website: z.string().nullish(),
      custom_fields: z.record(z.string(), z.unknown()).nullish(),
    }),
  ),
});

/** A reading that cannot end: the cycle stops naming why. */
function pagingError(what: string): CrmError {
  return new CrmError(200, { kind: 'fail', error: `Pipedrive answered ${what}; the reading stops` });
}

/** An account's fields, read once a reading. */
async function fieldsOf(client: CrmHttp, object: 'contacts' | 'companies'): Promise<PipedriveFields> {
  const path = FIELDS_PATH[object];
  const answer = await client.request('GET', path, undefined, AbortSignal.timeout(READ_TIMEOUT_MS));
  return readFields(answer, `GET ${path}`);
}

/** The `?custom_fields=` of a list call: the keys asked, when few enough to name. */
function customFieldsParam(params: URLSearchParams, keys: readonly string[]): void {
  if (keys.length > 0 && keys.length <= MAX_CUSTOM_KEYS) params.set('custom_fields', keys.join(','));
}

/** One list call over `object`'s records, its answer checked with `schema` under `maxItems`. */
async function listRecords<S extends z.ZodType>(
  client: CrmHttp,
  object: 'contacts' | 'companies',
  params: URLSearchParams,
  schema: S,
  maxItems: number,
): Promise<z.output<S>> {
  const path = `${RECORDS_PATH[object]}?${params.toString()}`;
  const answer = await client.request('GET', path, undefined, AbortSignal.timeout(READ_TIMEOUT_MS));
  return checkAnswer(schema, answer, { crm: 'Pipedrive', call: `GET ${RECORDS_PATH[object]}`, maxItems });
}

/** The domains of organizations `orgIds`: the key field's value, else the website, normalized. */
async function orgDomains(
  client: CrmHttp,
  orgFields: PipedriveFields,
  orgKeyField: string,
  orgIds: readonly number[],
): Promise<Map<number, string>> {
  const domains = new Map<number, string>();
  for (let at = 0; at < orgIds.length; at += ORGS_PER_CALL) {
    const ids = orgIds.slice(at, at + ORGS_PER_CALL);
    const params = new URLSearchParams({ ids: ids.join(','), limit: String(ids.length) });
    customFieldsParam(params, customKeys(orgFields, [orgKeyField]));
    const orgs = await listRecords(client, 'companies', params, orgsSchema, ORGS_PER_CALL);
    for (const org of orgs.data) {
      const key = decodeRecord(orgFields, org, [orgKeyField])[orgKeyField] ?? undefined;
      const domain = normalizeDomain(key) ?? normalizeDomain(org.website ?? undefined);
      if (domain !== undefined) domains.set(org.id, domain);
    }
  }
  return domains;
}

/**
 * The reader, each reading through a client `clientFor` makes. `orgKeyField`: the organization field
 * holding the domain (the destination's `org_key_field`).
 */
export function createPipedrivePersonReader(
  clientFor: (deps: ContactReaderDeps) => CrmHttp,
  orgKeyField: string,
): ContactReader<PipedriveSourceQuery> {
  // The pipedrive-persons template's names; a field the account lacks (no "LinkedIn URL") gives no cell.
  const columns = {
    email: 'Email',
    linkedin: 'LinkedIn URL',
    firstName: 'First name',
    lastName: 'Last name',
  };
  return {
    idKey: PIPEDRIVE_PERSON_ID_KEY,
    columns,
    async *contacts(query, fields, deps) {
      const client = clientFor(deps);
      const personFields = await fieldsOf(client, 'contacts');
      const orgFields = await fieldsOf(client, 'companies');
      const unknown = fields.find((name) => !personFields.has(name));
      if (unknown !== undefined) {
        throw new CrmError(200, {
          kind: 'fail',
          error: `the account has no person field named "${unknown}"`,
        });
      }
      const names = [
        ...new Set([...Object.values(columns), ...fields].filter((name) => personFields.has(name))),
      ];
      let cursor: string | undefined;
      for (let pages = 1; ; pages += 1) {
        if (pages > MAX_SOURCE_PAGES) throw pagingError(`more than ${MAX_SOURCE_PAGES} pages of persons`);
        const params = new URLSearchParams({ limit: String(PERSONS_PAGE), sort_by: 'id' });
        if (query.filter_id !== undefined) params.set('filter_id', String(query.filter_id));
        if (query.owner_id !== undefined) params.set('owner_id', String(query.owner_id));
        customFieldsParam(params, customKeys(personFields, names));
        if (cursor !== undefined) params.set('cursor', cursor);
        const page = await listRecords(client, 'contacts', params, pageSchema, PERSONS_PAGE);
        const orgIds = [
          ...new Set(page.data.flatMap((person) => (person.org_id == null ? [] : [person.org_id]))),
        ];
        const domains = await orgDomains(client, orgFields, orgKeyField, orgIds);
        const rows: ContactRow[] = page.data.map((person) => {
          const cells: Record<string, string> = {};
          for (const [name, value] of Object.entries(decodeRecord(personFields, person, names))) {
            const text = value?.trim();
            if (text !== undefined && text !== '') cells[name] = text;
          }
          const domain = person.org_id == null ? undefined : domains.get(person.org_id);
          if (domain !== undefined) cells.company_domain = domain;
          return { id: String(person.id), cells };
        });
        yield* rows;
        const previous = cursor;
        cursor = page.data.length > 0 ? (page.additional_data?.next_cursor ?? undefined) : undefined;
        if (cursor === undefined) return;
        if (cursor === previous)
          throw pagingError(`the same page again (cursor=${boundOutsideText(previous, 80)})`);
      }
    },
  };
}
