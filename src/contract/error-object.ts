/**
 * The error object of the interface (Errors part): status, message, category, code (prefix equals
 * category) and an optional `error` detail of bounded size.
 */
import { z } from 'zod';
import { ERROR_CATEGORIES, type ErrorCode } from '../errors.js';
import { categoryOf, ERROR_CODE_PATTERN } from './error-codes.js';
import { ERROR_DETAIL_MAX_ITEMS, ERROR_DETAIL_MAX_LENGTH } from './limits.js';

const detailString = z.string().max(ERROR_DETAIL_MAX_LENGTH);

/** An error body. `code` need only match the pattern: a later version may add codes. */
export const errorObjectSchema = z
  .looseObject({
    status: z.string().nullable(),
    message: z.string(),
    category: z.enum(ERROR_CATEGORIES),
    code: z.string().regex(ERROR_CODE_PATTERN, { error: 'must match CATEGORY_DETAIL' }),
    error: z.union([detailString, z.array(detailString).max(ERROR_DETAIL_MAX_ITEMS)]).optional(),
  })
  .refine((value) => categoryOf(value.code) === value.category, {
    error: 'code prefix must equal category',
    path: ['code'],
  });
export type ErrorObject = z.output<typeof errorObjectSchema>;

/**
 * Cuts `text` to at most `max` UTF-16 units (the unit JSON Schema lengths count in JavaScript)
 * without leaving half of a surrogate pair at the end.
 */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * An error object for `code`, as the service writes one: status "error", the category derived from
 * the code, and the detail cut to the interface's limits (10 items of at most 1000 characters).
 */
export function makeErrorObject(
  code: ErrorCode,
  message: string,
  detail?: string | readonly string[],
): ErrorObject {
  const category = categoryOf(code);
  if (category === undefined) throw new TypeError(`makeErrorObject: ${code} has no category`);
  const object: ErrorObject = { status: 'error', message, category, code };
  if (typeof detail === 'string') object.error = truncate(detail, ERROR_DETAIL_MAX_LENGTH);
  else if (detail !== undefined) {
    object.error = detail.slice(0, ERROR_DETAIL_MAX_ITEMS).map((d) => truncate(d, ERROR_DETAIL_MAX_LENGTH));
  }
  return object;
}

/** The error object in a response body, or undefined when the body is not one. */
export function parseErrorObject(value: unknown): ErrorObject | undefined {
  const result = errorObjectSchema.safeParse(value);
  return result.success ? result.data : undefined;
}
