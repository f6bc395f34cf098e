/**
 * One row of the file → one request: columns named after request fields (or mapped with --map), values
 * set for every row (--set), columns carried into custom_fields (--carry) and the callback address,
 * typed by the field they fill and checked with the contract's parser before anything is sent.
 */
import { CUSTOM_FIELDS_KEY_PATTERN } from '../contract/limits.js';
import { ValidationError } from '../errors.js';
import type { OperationSpec } from './launch-operations.js';
import { typeCell } from './type-cell.js';

/** How rows become requests; built once from the command's flags by {@link createRequestPlan}. */
export interface RequestPlan {
  readonly operation: OperationSpec;
  /** Field → the column it is read from (the field's own name unless mapped). */
  readonly columns: ReadonlyMap<string, string>;
  /** Field → the typed value every row gets. */
  readonly set: ReadonlyMap<string, unknown>;
  /** custom_fields key → the column it is copied from. */
  readonly carry: ReadonlyMap<string, string>;
  readonly webhookUrl: string | undefined;
  /** Search only: pages from the row's page_number on (undefined: one job per row). */
  readonly pages: number | undefined;
}

/** The flags a plan is made from, as given. */
export interface RequestPlanInput {
  readonly map?: readonly string[];
  readonly set?: readonly string[];
  readonly carry?: readonly string[];
  readonly webhookUrl?: string | undefined;
  readonly pages?: number | undefined;
}

/**
 * A plan's parts as pairs, already split: what `hooksync launch`'s flags and a watches file's `map`,
 * `set` and `carry` objects both come to. A `set` value is a cell: text typed by its field, or (from JSON)
 * a value taken as it is, exactly as a JSON lines cell.
 */
export interface RequestPlanEntries {
  readonly map?: ReadonlyArray<readonly [field: string, column: string]>;
  readonly set?: ReadonlyArray<readonly [field: string, value: unknown]>;
  readonly carry?: ReadonlyArray<readonly [key: string, column: string]>;
  readonly webhookUrl?: string | undefined;
  readonly pages?: number | undefined;
}

/** How a problem names the part it is in: the flag (`--map`) or the watches file's field (`map`). */
export interface PlanPartNames {
  readonly map: string;
  readonly set: string;
  readonly carry: string;
  readonly pages: string;
}

/** The request for a row, or the problems that keep it from being sent (one `field: rule` each). */
export type BuiltRequest =
  | { readonly request: Record<string, unknown>; readonly problems?: undefined }
  | { readonly request?: undefined; readonly problems: readonly string[] };

const FLAG_NAMES: PlanPartNames = { map: '--map', set: '--set', carry: '--carry', pages: '--pages' };

function splitPair(flag: string, pair: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new TypeError(`${flag} must be FIELD=VALUE (got "${pair}")`);
  return [pair.slice(0, at).trim(), pair.slice(at + 1)];
}

function requireField(operation: OperationSpec, flag: string, field: string): void {
  if (!operation.fields.has(field)) {
    throw new TypeError(
      `${flag}: "${field}" is not a request field of ${operation.name} (fields: ${[...operation.fields.keys()].join(', ')})`,
    );
  }
}

/**
 * Reads --map, --set and --carry. Throws TypeError with a one-line message for a flag that cannot be
 * used: an unknown field, a --set value that cannot be typed, a --carry key custom_fields refuses.
 */
export function createRequestPlan(operation: OperationSpec, input: RequestPlanInput): RequestPlan {
  return createRequestPlanFromEntries(operation, {
    map: (input.map ?? []).map((pair) => {
      const [field, column] = splitPair('--map', pair);
      return [field, column.trim()] as const;
    }),
    set: (input.set ?? []).map((pair) => splitPair('--set', pair)),
    carry: (input.carry ?? []).map((spec) => {
      const at = spec.indexOf('=');
      const key = (at < 0 ? spec : spec.slice(0, at)).trim();
      return [key, at < 0 ? key : spec.slice(at + 1).trim()] as const;
    }),
    webhookUrl: input.webhookUrl,
    pages: input.pages,
  });
}

/**
 * The one place a plan is made and checked, whatever it was written in (the launch command's flags, a
 * watch's file entry). `names` says how problems name each part. Throws TypeError with a one-line message.
 */
export function createRequestPlanFromEntries(
  operation: OperationSpec,
  input: RequestPlanEntries,
  names: PlanPartNames = FLAG_NAMES,
): RequestPlan {
  const columns = new Map<string, string>([...operation.fields.keys()].map((field) => [field, field]));
  for (const [field, column] of input.map ?? []) {
    requireField(operation, names.map, field);
    columns.set(field, column);
  }
  const set = new Map<string, unknown>();
  for (const [field, value] of input.set ?? []) {
    requireField(operation, names.set, field);
    const typed = typeCell(field, operation.fields.get(field) ?? 'string', value);
    if ('problem' in typed) throw new TypeError(`${names.set} ${typed.problem}`);
    set.set(field, typed.value);
  }
  const carry = new Map<string, string>();
  for (const [key, column] of input.carry ?? []) {
    if (!CUSTOM_FIELDS_KEY_PATTERN.test(key)) {
      throw new TypeError(
        names.carry === FLAG_NAMES.carry
          ? `--carry: "${key}" cannot be a custom_fields key (letters, digits, _ and - only); name one: --carry KEY=${column}`
          : `${names.carry}: "${key}" cannot be a custom_fields key (letters, digits, _ and - only)`,
      );
    }
    carry.set(key, column);
  }
  if (input.pages !== undefined && operation.name !== 'search') {
    throw new TypeError(`${names.pages} applies to search only`);
  }
  return { operation, columns, set, carry, webhookUrl: input.webhookUrl, pages: input.pages };
}

/** The columns a plan reads, for telling the user which columns of the file it leaves unused. */
export function columnsRead(plan: RequestPlan): Set<string> {
  return new Set([...plan.columns.values(), ...plan.carry.values()]);
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function validate(plan: RequestPlan, request: Record<string, unknown>): string[] {
  try {
    plan.operation.validate(request);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.issues.length > 0 ? [...error.issues] : [error.message];
  }
}

/** Builds and checks the request of one row; a row that passes is sent exactly as returned. */
export function buildRequest(plan: RequestPlan, cells: Readonly<Record<string, unknown>>): BuiltRequest {
  const request: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [field, type] of plan.operation.fields) {
    if (plan.set.has(field)) {
      request[field] = plan.set.get(field);
      continue;
    }
    const column = plan.columns.get(field) ?? field;
    const cell = Object.hasOwn(cells, column) ? cells[column] : undefined;
    if (isBlank(cell)) continue;
    const typed = typeCell(field, type, cell);
    if ('problem' in typed) problems.push(typed.problem);
    else request[field] = typed.value;
  }
  if (request.webhook_url === undefined && plan.webhookUrl !== undefined)
    request.webhook_url = plan.webhookUrl;
  if (plan.carry.size > 0) {
    const base = request.custom_fields;
    const customFields: Record<string, unknown> =
      base !== null && typeof base === 'object' && !Array.isArray(base) ? { ...(base as object) } : {};
    for (const [key, column] of plan.carry) {
      const cell = Object.hasOwn(cells, column) ? cells[column] : undefined;
      if (isBlank(cell)) continue;
      customFields[key] = typeof cell === 'string' ? cell.trim() : cell;
    }
    request.custom_fields = customFields;
  }
  if (problems.length > 0) return { problems };
  problems.push(...validate(plan, request));
  if (problems.length === 0 && plan.pages !== undefined && plan.pages > 1) {
    // Every page must be a valid request too: page_number may not pass its limit on the last page.
    const first = typeof request.page_number === 'number' ? request.page_number : 1;
    const last = validate(plan, { ...request, page_number: first + plan.pages - 1 });
    for (const issue of last)
      problems.push(`${issue} (page ${first + plan.pages - 1} of --pages ${plan.pages})`);
  }
  return problems.length > 0 ? { problems } : { request };
}
