import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CliError, EXIT_ABORTED, EXIT_FAILURE, EXIT_USAGE } from '../../../src/cli/context.js';
import {
  HooksyncError,
  isTransientCode,
  REQUEST_REFUSALS,
  SIGNATURE_REASONS,
  TRANSIENT_CODES,
  TRANSIENT_SIGNATURE_REASONS,
} from '../../../src/errors.js';
import {
  HINTED_REFUSALS,
  REFUSAL_STATUS,
  refusal,
  retryLater,
  TRANSIENT_STATUS,
} from '../../../src/receiver/delivery-answer.js';
import { BodyReadError } from '../../../src/receiver/read-body.js';

const sorted = (values: Iterable<string>): string[] => [...values].sort();

describe('the receiver answer tables', () => {
  it('give every refusal code a status, and only those', () => {
    expect(sorted(Object.keys(REFUSAL_STATUS))).toEqual(sorted([...SIGNATURE_REASONS, ...REQUEST_REFUSALS]));
  });

  it('give every transient code 429 or 500 and never 503, and only those', () => {
    expect(sorted(Object.keys(TRANSIENT_STATUS))).toEqual(sorted(TRANSIENT_CODES));
    for (const code of TRANSIENT_CODES) {
      expect([429, 500]).toContain(TRANSIENT_STATUS[code]);
      const answer = retryLater(code, 'later');
      expect(answer.status).toBe(TRANSIENT_STATUS[code]);
      expect(answer.outcome).toBe(answer.status === 429 ? 'overloaded' : 'retry_later');
      expect(answer.body).toEqual({ status: 'error', code, message: 'later' });
    }
  });

  it('answer a transient signature reason 500 and as a refusal the same status', () => {
    for (const code of TRANSIENT_SIGNATURE_REASONS) {
      expect(isTransientCode(code)).toBe(true);
      expect(retryLater(code, 'x').status).toBe(500);
    }
    expect(refusal('KEYSET_UNAVAILABLE', 'x').outcome).toBe('retry_later');
    expect(refusal('SIGNATURE_UNKNOWN_KID', 'x').status).toBe(401);
    expect(isTransientCode('SIGNATURE_INVALID')).toBe(false);
  });

  it('hint only refusals of a verified token', () => {
    expect(sorted(HINTED_REFUSALS)).toEqual(
      sorted(['SIGNATURE_EXPIRED', 'SIGNATURE_NOT_YET_VALID', 'BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']),
    );
  });

  it('keep the retry-after of a spent budget', () => {
    expect(retryLater('UNSIGNED_FETCH_BUDGET', 'spent', 60)).toMatchObject({
      status: 429,
      retryAfterSeconds: 60,
    });
  });
});

describe('the error hierarchy', () => {
  it('makes a CLI failure a HooksyncError whose code names its exit code', () => {
    const cases = [
      [EXIT_FAILURE, 'CLI_FAILED'],
      [EXIT_USAGE, 'CLI_USAGE'],
      [EXIT_ABORTED, 'CLI_ABORTED'],
    ] as const;
    for (const [exitCode, code] of cases) {
      const error = new CliError('it failed', exitCode);
      expect(error).toBeInstanceOf(HooksyncError);
      expect(error).toMatchObject({ code, exitCode, message: 'it failed', name: 'CliError' });
    }
    expect(new CliError('default')).toMatchObject({ code: 'CLI_FAILED', exitCode: EXIT_FAILURE });
  });

  it('makes a body read failure a HooksyncError with the code it is answered with', () => {
    const cases = [
      ['too_large', 'BODY_TOO_LARGE'],
      ['aborted', 'BODY_ABORTED'],
      ['timeout', 'BODY_TIMEOUT'],
      ['over_budget', 'BODY_BUDGET'],
    ] as const;
    for (const [reason, code] of cases) {
      const error = new BodyReadError(reason, 'no body');
      expect(error).toBeInstanceOf(HooksyncError);
      expect(error).toMatchObject({ code, reason, message: 'no body', name: 'BodyReadError' });
    }
  });
});

describe('errors.ts', () => {
  it('imports nothing, so that contract/ depends on it and not the other way round', () => {
    const source = readFileSync(new URL('../../../src/errors.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^\s*import\b/m);
    expect(source).not.toMatch(/\bfrom\s+['"]/);
  });
});
