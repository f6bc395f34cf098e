import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorObjectSchema, makeErrorObject, parseErrorObject } from '../../../src/contract/error-object.js';
import { ERROR_CODES } from '../../../src/errors.js';

describe('makeErrorObject', () => {
  it('derives the category from the code', () => {
    expect(
      makeErrorObject('RATE_LIMIT_RATE_LIMIT_EXCEEDED', 'Too many requests. Try again after 12 seconds'),
    ).toEqual({
      status: 'error',
      message: 'Too many requests. Try again after 12 seconds',
      category: 'RATE_LIMIT',
      code: 'RATE_LIMIT_RATE_LIMIT_EXCEEDED',
    });
    expect(makeErrorObject('NOT_FOUND_JOB_NOT_FOUND', 'Job not found').category).toBe('NOT_FOUND');
  });

  it('cuts the detail to 10 items of 1000 characters', () => {
    expect(makeErrorObject('VALIDATION_BAD_REQUEST', 'm', 'x'.repeat(1500)).error).toBe('x'.repeat(1000));
    const many = Array.from({ length: 12 }, (_, i) => `${i}`.repeat(1200));
    const error = makeErrorObject('VALIDATION_BAD_REQUEST', 'm', many).error as string[];
    expect(error).toHaveLength(10);
    for (const item of error) expect(item).toHaveLength(1000);
    expect(makeErrorObject('VALIDATION_BAD_REQUEST', 'm', ['a', 'b']).error).toEqual(['a', 'b']);
  });

  it('does not split a surrogate pair when cutting', () => {
    const text = `${'x'.repeat(999)}😀`;
    const cut = makeErrorObject('INTERNAL_UNCLASSIFIED_ERROR', 'm', text).error as string;
    expect(cut).toBe('x'.repeat(999));
  });

  it('round-trips through parseErrorObject for every code and any detail', () => {
    const detail = fc.oneof(
      fc.string({ maxLength: 1500 }),
      fc.array(fc.string({ maxLength: 1200 }), { maxLength: 14 }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...ERROR_CODES),
        fc.string(),
        fc.option(detail, { nil: undefined }),
        (code, message, d) => {
          const object = makeErrorObject(code, message, d);
          expect(parseErrorObject(JSON.parse(JSON.stringify(object)))).toEqual(object);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('parseErrorObject', () => {
  const valid = { status: 'error', message: 'Invalid API key', category: 'AUTH', code: 'AUTH_BAD_API_KEY' };

  it('accepts the interface shape, status null and unknown codes of a known category', () => {
    expect(parseErrorObject(valid)).toEqual(valid);
    expect(parseErrorObject({ ...valid, status: null })).toEqual({ ...valid, status: null });
    expect(parseErrorObject({ ...valid, code: 'AUTH_SOMETHING_NEW', extra: 1 })).toEqual({
      ...valid,
      code: 'AUTH_SOMETHING_NEW',
      extra: 1,
    });
  });

  it.each([
    ['a code of another category', { ...valid, code: 'QUOTA_ACCOUNT_OVER_QUOTA' }],
    ['a code off the pattern', { ...valid, code: 'AUTH_bad' }],
    ['an unknown category', { ...valid, category: 'BILLING', code: 'BILLING_X' }],
    ['no message', { status: 'error', category: 'AUTH', code: 'AUTH_BAD_API_KEY' }],
    ['no status', { message: 'm', category: 'AUTH', code: 'AUTH_BAD_API_KEY' }],
    ['an error string of 1001 characters', { ...valid, error: 'x'.repeat(1001) }],
    ['11 error items', { ...valid, error: Array(11).fill('x') }],
    ['an error item of 1001 characters', { ...valid, error: ['x'.repeat(1001)] }],
    ['an error number', { ...valid, error: 5 }],
    ['null', null],
    ['an HTML page', '<html>502 Bad Gateway</html>'],
  ])('is undefined for %s', (_label, value) => {
    expect(parseErrorObject(value)).toBeUndefined();
    expect(errorObjectSchema.safeParse(value).success).toBe(false);
  });
});
