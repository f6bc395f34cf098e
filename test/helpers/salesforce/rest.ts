/**
 * The REST resources under `/services/data/vXX.X` (REST API Developer Guide): sObject describe, SOQL query with
 * `nextRecordsUrl` paging, sObject Collections upsert by external id (v46.0+), a record's PATCH by Id and by
 * external id, and `/limits`. Each handler returns the status and body Salesforce answers.
 */
import { notFoundBody, type RecordError, recordError, sfErrors } from './errors.js';
import { describeObject, type FieldDefinition, type SObjectName } from './schema.js';
import { isSObject, matches, parseSoql, pathsOf, type Query, SoqlError } from './soql.js';
import type { OrgRecord, OrgStore, Value } from './store.js';
import { NAME_FIELDS, orgOwner, USER_FIELDS } from './users.js';

/** What a handler answers: JSON, or text with its own content type (Bulk CSV results). */
export interface Answer {
  status: number;
  body?: unknown;
  text?: string;
  contentType?: string;
}

/** What the handlers share. */
export interface RestContext {
  store: OrgStore;
  now: () => number;
  /** `vXX.X` of the request. */
  version: string;
  /** Rows per query page: `Sforce-Query-Options: batchSize` (200-2,000) or the stand-in's default. */
  pageSize: number;
  limits: () => { max: number; remaining: number };
  cursors: Map<string, { rows: Array<Record<string, unknown>>; pageSize: number }>;
}

/** Records a collections call takes at most. */
export const COLLECTION_LIMIT = 200;

/** The version number of `v62.0`. */
export function versionNumber(version: string): number {
  return Number(version.slice(1));
}

/** GET sobjects/{Object}/describe. */
export function describe(ctx: RestContext, object: string): Answer {
  if (!isSObject(object)) return { status: 404, body: notFoundBody() };
  return { status: 200, body: describeObject(object, ctx.store.schema[object]) };
}

/** GET /limits: the allocation and the Bulk batches (their use is not modelled). */
export function limits(ctx: RestContext): Answer {
  const { max, remaining } = ctx.limits();
  return {
    status: 200,
    body: {
      DailyApiRequests: { Max: max, Remaining: remaining },
      DailyBulkApiBatches: { Max: 15_000, Remaining: 15_000 },
      DailyBulkV2QueryJobs: { Max: 10_000, Remaining: 10_000 },
    },
  };
}

function attributes(ctx: RestContext, object: string, id: string) {
  return { type: object, url: `/services/data/${ctx.version}/sobjects/${object}/${id}` };
}

/** A relationship's field in `object` (`Account`, `Owner`), by its name in any case. */
function relationOf(ctx: RestContext, object: SObjectName, name: string): FieldDefinition | undefined {
  return [...ctx.store.schema[object].values()].find(
    (d) => d.relationshipName?.toLowerCase() === name.toLowerCase(),
  );
}

/** Whether `relation` points at an object of the store (rather than a User or a queue: users.ts). */
function held(relation: FieldDefinition): SObjectName | undefined {
  const [target] = relation.referenceTo;
  return relation.referenceTo.length === 1 && target !== undefined && isSObject(target) ? target : undefined;
}

/** The field names a query reads through `relation`. */
function parentNames(ctx: RestContext, relation: FieldDefinition): string[] {
  const target = held(relation);
  if (target !== undefined) return [...ctx.store.schema[target].keys()];
  return relation.referenceTo.length > 1 ? NAME_FIELDS : USER_FIELDS;
}

/** The parent record `relation` holds the id of in `record`, if any. */
function parentOf(ctx: RestContext, relation: FieldDefinition, record: OrgRecord) {
  const parentId = record.values[relation.name];
  if (typeof parentId !== 'string') return undefined;
  const target = held(relation);
  if (target === undefined) return orgOwner(ctx.store, parentId);
  const parent = ctx.store.get(target, parentId);
  return parent === undefined ? undefined : { Id: parent.Id, type: target, values: parent.values };
}

function select(ctx: RestContext, object: SObjectName, record: OrgRecord, fields: readonly string[]) {
  const row: Record<string, unknown> = { attributes: attributes(ctx, object, record.Id) };
  for (const path of fields) {
    const [head, tail] = path.split('.');
    if (tail === undefined) {
      const name = [...ctx.store.schema[object].keys()].find((n) => n.toLowerCase() === path.toLowerCase())!;
      row[name] = record.values[name] ?? null;
      continue;
    }
    const relation = relationOf(ctx, object, head!)!;
    const parent = parentOf(ctx, relation, record);
    const key = relation.relationshipName!;
    if (parent === undefined) {
      row[key] = null;
      continue;
    }
    const nested = (row[key] ?? { attributes: attributes(ctx, parent.type, parent.Id) }) as Record<
      string,
      unknown
    >;
    const name = parentNames(ctx, relation).find((n) => n.toLowerCase() === tail.toLowerCase())!;
    nested[name] = parent.values[name] ?? null;
    row[key] = nested;
  }
  return row;
}

function reader(ctx: RestContext, object: SObjectName, record: OrgRecord) {
  return (path: string): Value => {
    const [head, tail] = path.split('.');
    const schema = ctx.store.schema[object];
    if (tail === undefined) {
      const name = [...schema.keys()].find((n) => n.toLowerCase() === head!.toLowerCase())!;
      return record.values[name] ?? null;
    }
    const relation = relationOf(ctx, object, head!)!;
    const parent = parentOf(ctx, relation, record);
    const name = parentNames(ctx, relation).find((n) => n.toLowerCase() === tail.toLowerCase())!;
    return parent?.values[name] ?? null;
  };
}

function unknownPath(ctx: RestContext, object: SObjectName, query: Query): string | undefined {
  return pathsOf(query).find((path) => {
    const [head, tail] = path.split('.');
    const schema = ctx.store.schema[object];
    if (tail === undefined) return ![...schema.keys()].some((n) => n.toLowerCase() === head!.toLowerCase());
    const relation = relationOf(ctx, object, head!);
    if (relation === undefined) return true;
    return !parentNames(ctx, relation).some((n) => n.toLowerCase() === tail.toLowerCase());
  });
}

function page(
  ctx: RestContext,
  cursorId: string,
  rows: Array<Record<string, unknown>>,
  offset: number,
  pageSize: number,
): Answer {
  const end = offset + pageSize;
  const done = end >= rows.length;
  return {
    status: 200,
    body: {
      totalSize: rows.length,
      done,
      ...(done ? {} : { nextRecordsUrl: `/services/data/${ctx.version}/query/${cursorId}-${end}` }),
      records: rows.slice(offset, end),
    },
  };
}

/** GET query?q=…: the first page, with `nextRecordsUrl` while more remain. */
export function query(ctx: RestContext, soql: string | null): Answer {
  if (soql === null || soql.trim() === '')
    return { status: 400, body: sfErrors('A query string has to be specified', 'MALFORMED_QUERY') };
  let parsed: Query;
  try {
    parsed = parseSoql(soql);
  } catch (error) {
    if (error instanceof SoqlError)
      return {
        status: 400,
        body: sfErrors(`\n${soql}\n^\nERROR at Row:1:Column:1\n${error.message}`, 'MALFORMED_QUERY'),
      };
    throw error;
  }
  if (!isSObject(parsed.object))
    return {
      status: 400,
      body: sfErrors(`sObject type '${parsed.object}' is not supported.`, 'INVALID_TYPE'),
    };
  const object = parsed.object;
  const unknown = unknownPath(ctx, object, parsed);
  if (unknown !== undefined)
    return {
      status: 400,
      body: sfErrors(`No such column '${unknown}' on entity '${object}'.`, 'INVALID_FIELD'),
    };
  let records = ctx.store
    .all(object)
    .filter((r) => parsed.where === undefined || matches(parsed.where, reader(ctx, object, r)));
  if (parsed.orderBy) {
    const { path, descending } = parsed.orderBy;
    records = [...records].sort((a, b) => {
      const x = reader(ctx, object, a)(path);
      const y = reader(ctx, object, b)(path);
      const order = x === null ? (y === null ? 0 : -1) : y === null ? 1 : String(x).localeCompare(String(y));
      return descending ? -order : order;
    });
  }
  if (parsed.limit !== undefined) records = records.slice(0, parsed.limit);
  const rows = records.map((r) => select(ctx, object, r, parsed.fields));
  const cursorId = `01g${String(ctx.cursors.size + 1).padStart(12, '0')}`;
  ctx.cursors.set(cursorId, { rows, pageSize: ctx.pageSize });
  return page(ctx, cursorId, rows, 0, ctx.pageSize);
}

/** GET query/{cursor}-{offset}: a later page. */
export function queryMore(ctx: RestContext, locator: string): Answer {
  const match = /^(01g\w+)-(\d+)$/.exec(locator);
  const cursor = match ? ctx.cursors.get(match[1]!) : undefined;
  if (!match || !cursor)
    return { status: 400, body: sfErrors('invalid query locator', 'INVALID_QUERY_LOCATOR') };
  return page(ctx, match[1]!, cursor.rows, Number(match[2]), cursor.pageSize);
}

function resultOf(result: ReturnType<OrgStore['write']>) {
  return result.ok
    ? { id: result.id, success: true, errors: [], created: result.created }
    : { success: false, errors: result.errors };
}

/** A collections body's records, or the 400 a malformed body or more than 200 records answer. */
function collectionInput(
  body: unknown,
): { input: { allOrNone?: unknown }; records: Array<Record<string, unknown>> } | { refused: Answer } {
  const input = body as { allOrNone?: unknown; records?: unknown } | undefined;
  if (typeof input !== 'object' || input === null || !Array.isArray(input.records))
    return {
      refused: {
        status: 400,
        body: sfErrors("Can not deserialize SObject[] out of 'undefined'", 'JSON_PARSER_ERROR'),
      },
    };
  const records = input.records as Array<Record<string, unknown>>;
  if (records.length > COLLECTION_LIMIT) {
    const message = `record limit reached. cannot submit more than ${COLLECTION_LIMIT} records into this call`;
    return { refused: { status: 400, body: sfErrors(message, 'EXCEEDED_ID_LIMIT') } };
  }
  return { input, records };
}

/**
 * PATCH composite/sobjects/{Object}/{ExternalIdField}: ≤ 200 records of that object, answered in order with
 * `{id, success, errors, created}`; with `allOrNone` one failure rolls every record back.
 */
export function collectionsUpsert(ctx: RestContext, object: string, keyField: string, body: unknown): Answer {
  if (versionNumber(ctx.version) < 46 || !isSObject(object)) return { status: 404, body: notFoundBody() };
  const read = collectionInput(body);
  if ('refused' in read) return read.refused;
  const { input, records } = read;
  const key = ctx.store.schema[object].get(keyField);
  if (key === undefined || !key.idLookup || key.name === 'Id')
    return {
      status: 400,
      body: sfErrors(
        `Field name provided, ${keyField} is not an External ID or indexed field for ${object}`,
        'INVALID_FIELD',
      ),
    };
  for (const record of records) {
    const type = (record?.attributes as { type?: unknown } | undefined)?.type;
    if (type === undefined)
      return {
        status: 400,
        body: sfErrors(
          'When the allOrNone parameter is false, each record must have a type specified in the attributes',
          'INVALID_FIELD',
        ),
      };
    if (type !== object)
      return {
        status: 400,
        body: sfErrors(
          `The sObject type ${String(type)} doesn't match the type of the request, ${object}`,
          'INVALID_TYPE',
        ),
      };
    const unknown = ctx.store.unknownFields(object, record);
    if (unknown.length > 0)
      return {
        status: 400,
        body: sfErrors(`No such column '${unknown[0]}' on sobject of type ${object}`, 'INVALID_FIELD'),
      };
  }
  const keyOf = (record: Record<string, unknown>) => {
    const value = record[key.name];
    return typeof value === 'string' || typeof value === 'number'
      ? key.caseSensitive
        ? String(value)
        : String(value).toLowerCase()
      : undefined;
  };
  const counts = new Map<string, number>();
  for (const record of records) {
    const k = keyOf(record);
    if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const rollback = input.allOrNone === true ? ctx.store.snapshot() : undefined;
  const results = records.map((record) => {
    const k = keyOf(record);
    if (k === undefined)
      return resultOf({
        ok: false,
        errors: [recordError('MISSING_ARGUMENT', `${key.name} not specified`, [key.name])],
      });
    if ((counts.get(k) ?? 0) > 1)
      return resultOf({
        ok: false,
        errors: [
          recordError('DUPLICATE_VALUE', `Duplicate external id specified: ${String(record[key.name])}`, [
            key.name,
          ]),
        ],
      });
    const found = ctx.store.findBy(object, key.name, String(record[key.name]));
    if (found.length > 1)
      return resultOf({
        ok: false,
        errors: [
          recordError(
            'DUPLICATE_EXTERNAL_ID',
            `${key.label}: more than one record found for external id field: [${found.map((f) => f.Id).join(', ')}]`,
            [key.name],
          ),
        ],
      });
    return resultOf(ctx.store.write(object, found[0], record, ctx.now()));
  });
  if (rollback !== undefined && results.some((r) => !r.success)) {
    rollback();
    const rolledBack: RecordError = recordError(
      'ALL_OR_NONE_OPERATION_ROLLED_BACK',
      'Record rolled back because not all records were valid and the request was using AllOrNone header',
    );
    return {
      status: 200,
      body: results.map((r) => (r.success ? { success: false, errors: [rolledBack] } : r)),
    };
  }
  return { status: 200, body: results };
}

/**
 * PATCH composite/sobjects: update ≤ 200 records by Id (any of the objects), answered in order with
 * `{id, success, errors}`; a well-formed Id of no record answers ENTITY_IS_DELETED.
 */
export function collectionsUpdate(ctx: RestContext, body: unknown): Answer {
  const read = collectionInput(body);
  if ('refused' in read) return read.refused;
  const { input, records } = read;
  for (const record of records) {
    const type = String((record?.attributes as { type?: unknown } | undefined)?.type);
    if (!isSObject(type))
      return { status: 400, body: sfErrors(`sObject type '${type}' is not supported.`, 'INVALID_TYPE') };
    const unknown = ctx.store.unknownFields(type, record).filter((name) => name !== 'Id');
    if (unknown.length > 0)
      return {
        status: 400,
        body: sfErrors(`No such column '${unknown[0]}' on sobject of type ${type}`, 'INVALID_FIELD'),
      };
  }
  const rollback = input.allOrNone === true ? ctx.store.snapshot() : undefined;
  const results = records.map((record) => {
    const type = (record.attributes as { type: SObjectName }).type;
    const id = record.Id;
    if (typeof id !== 'string' || !/^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/.test(id))
      return {
        success: false,
        errors: [
          recordError('MALFORMED_ID', `${type} ID: id value of incorrect type: ${String(id)}`, ['Id']),
        ],
      };
    const existing = ctx.store.get(type, id);
    if (existing === undefined)
      return { success: false, errors: [recordError('ENTITY_IS_DELETED', 'entity is deleted', [])] };
    const { Id: _id, ...values } = record;
    const result = ctx.store.write(type, existing, values, ctx.now());
    return result.ok
      ? { id: result.id, success: true, errors: [] }
      : { id, success: false, errors: result.errors };
  });
  if (rollback !== undefined && results.some((r) => !r.success)) {
    rollback();
    const rolledBack = recordError(
      'ALL_OR_NONE_OPERATION_ROLLED_BACK',
      'Record rolled back because not all records were valid and the request was using AllOrNone header',
    );
    return {
      status: 200,
      body: results.map((r) => (r.success ? { id: r.id, success: false, errors: [rolledBack] } : r)),
    };
  }
  return { status: 200, body: results };
}

/** PATCH sobjects/{Object}/{Id}: 204, or 400 with the record's errors, 404 for no such record. */
export function patchById(ctx: RestContext, object: string, id: string, body: unknown): Answer {
  if (!isSObject(object)) return { status: 404, body: notFoundBody() };
  const record = ctx.store.get(object, id);
  if (record === undefined)
    return {
      status: 404,
      body: sfErrors(`Provided external ID field does not exist or is not accessible: ${id}`, 'NOT_FOUND'),
    };
  if (typeof body !== 'object' || body === null)
    return { status: 400, body: sfErrors('Unexpected end of input', 'JSON_PARSER_ERROR') };
  if ('Id' in body)
    return {
      status: 400,
      body: sfErrors(
        'Unable to create/update fields: Id. Please check the security settings of this field and verify that it is read/write for your profile or permission set.',
        'INVALID_FIELD_FOR_INSERT_UPDATE',
        ['Id'],
      ),
    };
  const result = ctx.store.write(object, record, body as Record<string, unknown>, ctx.now());
  if (result.ok) return { status: 204 };
  return {
    status: 400,
    body: result.errors.map(({ statusCode, ...rest }) => ({ ...rest, errorCode: statusCode })),
  };
}

/** PATCH sobjects/{Object}/{ExternalIdField}/{value}: 201 created, 200 updated (v46+), 300 for several matches. */
export function upsertRow(
  ctx: RestContext,
  object: string,
  keyField: string,
  value: string,
  body: unknown,
): Answer {
  if (!isSObject(object)) return { status: 404, body: notFoundBody() };
  const key = ctx.store.schema[object].get(keyField);
  if (key === undefined || !key.idLookup) return { status: 404, body: notFoundBody() };
  if (typeof body !== 'object' || body === null)
    return { status: 400, body: sfErrors('Unexpected end of input', 'JSON_PARSER_ERROR') };
  const found = ctx.store.findBy(object, key.name, value);
  if (found.length > 1)
    return {
      status: 300,
      body: found.map((r) => `/services/data/${ctx.version}/sobjects/${object}/${r.Id}`),
    };
  const result = ctx.store.write(
    object,
    found[0],
    { ...(body as Record<string, unknown>), ...(found[0] ? {} : { [key.name]: value }) },
    ctx.now(),
  );
  if (!result.ok)
    return {
      status: 400,
      body: result.errors.map(({ statusCode, ...rest }) => ({ ...rest, errorCode: statusCode })),
    };
  const status = result.created ? 201 : versionNumber(ctx.version) >= 46 ? 200 : 204;
  return status === 204
    ? { status }
    : { status, body: { id: result.id, success: true, errors: [], created: result.created } };
}
