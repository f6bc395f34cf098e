/**
 * The one place where zod's issues become hooksync's words: readable `field: rule` strings and a
 * {@link ValidationError} carrying the code the service would answer.
 */
import type { z } from 'zod';
import { isErrorCode, type ValidationCode, ValidationError } from '../errors.js';

/** Issue params that ask for a specific service code instead of VALIDATION_BAD_REQUEST. */
export interface CodedIssueParams {
  code: ValidationCode;
}

/** Params for a zod refinement whose failure the service answers with `code`. */
export function withCode(code: ValidationCode): { params: CodedIssueParams } {
  return { params: { code } };
}

/** `title_filters[2].filter`, `custom_fields.crm_id`, or `body` for the root. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? 'body' : out;
}

const ARTICLES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
  bigint: 'an integer',
};

function describeBound(origin: string, bound: number | bigint, side: 'least' | 'most'): string {
  if (origin === 'string') return `must be at ${side} ${bound} characters long`;
  if (origin === 'array' || origin === 'set') return `must have at ${side} ${bound} items`;
  return `must be at ${side} ${bound}`;
}

/**
 * Error map for every parse of a contract schema: plain-English messages for the issues a schema does
 * not word itself. Schema-level messages take precedence over it (zod's precedence rules).
 */
export const contractErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${ARTICLES[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return describeBound(issue.origin, issue.minimum, 'least');
    case 'too_big':
      return describeBound(issue.origin, issue.maximum, 'most');
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(String(v))).join(', ')}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `has unexpected keys ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_union':
      return 'does not match any accepted shape';
    default:
      return undefined;
  }
};

/**
 * The branch of a failed union that got furthest: the one whose issues all lie below the union's own
 * path, when exactly one does (a Company with a bad field, not `{}` with extra keys).
 */
function furthestBranch(
  branches: readonly (readonly z.core.$ZodIssue[])[],
): readonly z.core.$ZodIssue[] | undefined {
  const deep = branches.filter((issues) => issues.length > 0 && issues.every((i) => i.path.length > 0));
  return deep.length === 1 ? deep[0] : undefined;
}

function flattenIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[],
  out: string[],
): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const branch = issue.code === 'invalid_union' ? furthestBranch(issue.errors) : undefined;
    if (branch === undefined) out.push(`${formatIssuePath(path)}: ${issue.message}`);
    else flattenIssues(branch, path, out);
  }
}

/**
 * The issues of a zod error as `path: message` strings, in the order zod found them. A failed union
 * reports the issues of the branch that nearly matched, when one did.
 */
export function formatZodIssues(error: z.ZodError): string[] {
  const out: string[] = [];
  flattenIssues(error.issues, [], out);
  return out;
}

function codeOfIssue(issue: z.core.$ZodIssue): ValidationCode | undefined {
  if (issue.code !== 'custom') return undefined;
  const code: unknown = issue.params?.code;
  return isErrorCode(code) && code.startsWith('VALIDATION_') ? (code as ValidationCode) : undefined;
}

/**
 * A zod error as the ValidationError the service would answer: the code of the first issue that asks
 * for a specific one (see {@link withCode}), else VALIDATION_BAD_REQUEST; every issue as `field: rule`.
 */
export function toValidationError(error: z.ZodError, message = 'Invalid request'): ValidationError {
  let code: ValidationCode = 'VALIDATION_BAD_REQUEST';
  for (const issue of error.issues) {
    const specific = codeOfIssue(issue);
    if (specific !== undefined) {
      code = specific;
      break;
    }
  }
  const issues = formatZodIssues(error);
  return new ValidationError(code, issues[0] === undefined ? message : `${message}: ${issues[0]}`, issues, {
    cause: error,
  });
}

/** Parses `value` with `schema` and the contract error map, throwing {@link toValidationError} on failure. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, message?: string): z.output<S> {
  const result = schema.safeParse(value, { error: contractErrorMap });
  if (!result.success) throw toValidationError(result.error, message);
  return result.data;
}
