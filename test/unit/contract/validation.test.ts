import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  formatIssuePath,
  parseOrThrow,
  toValidationError,
  withCode,
} from '../../../src/contract/validation.js';
import { ValidationError } from '../../../src/errors.js';

describe('validation helpers', () => {
  it('writes paths the way a reader looks for fields', () => {
    expect(formatIssuePath([])).toBe('body');
    expect(formatIssuePath(['page_size'])).toBe('page_size');
    expect(formatIssuePath(['title_filters', 2, 'filter'])).toBe('title_filters[2].filter');
    expect(formatIssuePath(['output', 'persons', 0, 'experiences', 1])).toBe(
      'output.persons[0].experiences[1]',
    );
  });

  const schema = z.object({
    a: z.string().refine((v) => v === 'ok', { error: 'must be ok', ...withCode('VALIDATION_BAD_DOMAIN') }),
    b: z.int().max(3),
    c: z.enum(['x', 'y']),
  });

  it('picks the first specific code, else VALIDATION_BAD_REQUEST, and words each issue', () => {
    const specific = schema.safeParse({ a: 'no', b: 4, c: 'x' });
    if (specific.success) throw new Error('expected a failure');
    const error = toValidationError(specific.error);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.code).toBe('VALIDATION_BAD_DOMAIN');
    expect(error.message).toBe('Invalid request: a: must be ok');

    expect(() => parseOrThrow(schema, { a: 'ok', b: 4, c: 'z' })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_BAD_REQUEST',
        issues: ['b: must be at most 3', 'c: must be one of "x", "y"'],
      }),
    );
    expect(() => parseOrThrow(schema, { a: 'ok', c: 'x' })).toThrow(
      expect.objectContaining({ issues: ['b: is required'] }),
    );
  });

  it('ignores codes that are not validation codes', () => {
    const s = z.string().refine(() => false, { params: { code: 'AUTH_BAD_API_KEY' } });
    const result = s.safeParse('x');
    if (result.success) throw new Error('expected a failure');
    expect(toValidationError(result.error).code).toBe('VALIDATION_BAD_REQUEST');
  });
});
