import { describe, expect, it } from 'vitest';
import { categoryOf, ERROR_CODE_PATTERN, httpStatusOf } from '../../../src/contract/error-codes.js';
import { ERROR_CATEGORIES, ERROR_CODES, isErrorCode } from '../../../src/errors.js';
import { interfaceText, sharedInterfaceText } from '../../helpers/interface-text.js';

/** The codes listed under "All error codes" in the interface, read from the document itself. */
function codesInInterface(): string[] {
  const section = interfaceText.split('All error codes:')[1]?.split('Clients use category')[0] ?? '';
  return [...section.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)]
    .map((m) => m[0])
    .filter((c) => !(ERROR_CATEGORIES as readonly string[]).includes(c));
}

describe('error codes', () => {
  it.skipIf(sharedInterfaceText === undefined)(
    `docs/service-interface.md is the current shared interface${sharedInterfaceText === undefined ? ' (skipped: ../shared/spec/service-interface.md is not beside the checkout)' : ''}`,
    () => {
      expect(interfaceText).toBe(sharedInterfaceText);
    },
  );

  it('lists exactly the codes of the interface, in its order', () => {
    const listed = codesInInterface();
    expect(listed.length).toBeGreaterThan(40);
    expect([...ERROR_CODES]).toEqual(listed);
  });

  it('derives each category from the prefix, matching the interface pattern', () => {
    for (const code of ERROR_CODES) {
      expect(code).toMatch(ERROR_CODE_PATTERN);
      const category = categoryOf(code);
      expect(category).toBeDefined();
      expect(code.startsWith(`${category}_`)).toBe(true);
    }
    expect(categoryOf('NOT_FOUND_JOB_NOT_FOUND')).toBe('NOT_FOUND');
    expect(categoryOf('RATE_LIMIT_RATE_LIMIT_EXCEEDED')).toBe('RATE_LIMIT');
    expect(categoryOf('SOMETHING_ELSE')).toBeUndefined();
  });

  it('maps the documented codes to the statuses of the interface table', () => {
    expect(httpStatusOf('VALIDATION_MISSING_BODY')).toBe(400);
    expect(httpStatusOf('VALIDATION_BAD_REQUEST')).toBe(400);
    expect(httpStatusOf('AUTH_MISSING_API_KEY')).toBe(401);
    expect(httpStatusOf('QUOTA_ACCOUNT_OVER_QUOTA')).toBe(402);
    expect(httpStatusOf('AUTH_BAD_API_KEY')).toBe(403);
    expect(httpStatusOf('RATE_LIMIT_RATE_LIMIT_EXCEEDED')).toBe(429);
    expect(httpStatusOf('NOT_FOUND_JOB_NOT_FOUND')).toBe(404);
    expect(httpStatusOf('ROUTING_INVALID_PATH_OR_METHOD')).toBe(404);
    expect(httpStatusOf('INTERNAL_UNCLASSIFIED_ERROR')).toBe(500);
    for (const code of ERROR_CODES) expect([400, 401, 402, 403, 404, 429, 500]).toContain(httpStatusOf(code));
  });

  it('recognises only listed codes', () => {
    expect(isErrorCode('AUTH_BAD_API_KEY')).toBe(true);
    expect(isErrorCode('AUTH_BAD')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});
