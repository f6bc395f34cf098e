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

/** The request for a row, or the problems that keep it from being sent (one `field: rule` each). */
export type BuiltRequest =
  | { readonly request: Record<string, unknown>; readonly problems?: undefined }
  | { readonly request?: undefined; readonly problems: readonly string[] };

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
  const columns = new Map<string, string>([...operation.fields.keys()].map((field) => [field, field]));
  for (const pair of input.map ?? []) {
    const [field, column] = splitPair('--map', pair);
    requireField(operation, '--map', field);
    columns.set(field, column.trim());
  }
  const set = new Map<string, unknown>();
  for (const pair of input.set ?? []) {
    const [field, text] = splitPair('--set', pair);
    requireField(operation, '--set', field);
    const typed = typeCell(field, operation.fields.get(field) ?? 'string', text);
    if ('problem' in typed) throw new TypeError(`--set ${typed.problem}`);
    set.set(field, typed.value);
  }
  const carry = new Map<string, string>();
  for (const spec of input.carry ?? []) {
    const at = spec.indexOf('=');
    const key = (at < 0 ? spec : spec.slice(0, at)).trim();
    const column = at < 0 ? key : spec.slice(at + 1).trim();
    if (!CUSTOM_FIELDS_KEY_PATTERN.test(key)) {
      throw new TypeError(
        `--carry: "${key}" cannot be a custom_fields key (letters, digits, _ and - only); name one: --carry KEY=${column}`,
      );
    }
    carry.set(key, column);
  }
  if (input.pages !== undefined && operation.name !== 'search') {
    throw new TypeError('--pages applies to search only');
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
