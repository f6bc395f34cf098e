import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/errors.js';
import { parseExpectedJobsBody } from '../../../../src/storage/ledger/parse-expected-jobs-body.js';

const A = '0b9c5f7e-1d2a-4c3b-8e4f-5a6b7c8d9e0f';
const B = '1c0d6e8f-2e3b-4d4c-9f5a-6b7c8d9e0f1a';

function failure(value: unknown): ValidationError {
  try {
    parseExpectedJobsBody(value);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseExpectedJobsBody', () => {
  it('reads {jobs:[{job_id, kind}]}', () => {
    expect(
      parseExpectedJobsBody({
        jobs: [
          { job_id: A, kind: 'job_change' },
          { job_id: B, kind: 'company_reveal' },
        ],
      }),
    ).toEqual([
      { job_id: A, kind: 'job_change' },
      { job_id: B, kind: 'company_reveal' },
    ]);
  });

  it('reads {job_ids:[...], kind}', () => {
    expect(parseExpectedJobsBody({ job_ids: [A, B], kind: 'search_contact' })).toEqual([
      { job_id: A, kind: 'search_contact' },
      { job_id: B, kind: 'search_contact' },
    ]);
  });

  it.each([
    [null, 'the body must be a JSON object'],
    [[A], 'the body must be a JSON object'],
    [{}, 'give exactly one of jobs and job_ids'],
    [{ jobs: [], job_ids: [] }, 'give exactly one of jobs and job_ids'],
    [{ jobs: 'x' }, 'jobs must be an array'],
    [{ job_ids: [A] }, 'kind must be one of'],
    [{ job_ids: [A], kind: 'unknown' }, 'kind must be one of'],
    [{ job_ids: [], kind: 'job_change' }, 'no job ids given'],
    [{ jobs: [{ job_id: A }] }, 'no valid kind'],
  ])('refuses %j', (body, message) => {
    const error = failure(body);
    expect(error.message).toContain(message);
  });

  it('names each bad entry by its index, whole list refused', () => {
    const error = failure({
      jobs: [{ job_id: A, kind: 'job_change' }, { job_id: 42, kind: 'job_change' }, 'x'],
    });
    expect(error.code).toBe('VALIDATION_BAD_JOB_ID');
    expect(error.issues).toEqual([
      'jobs[1]: "42" is not a UUID',
      'jobs[2] (not an object): "" is not a UUID',
    ]);
  });

  it('names a bad id of job_ids by its index', () => {
    const error = failure({ job_ids: [A, 'nope'], kind: 'job_change' });
    expect(error.issues).toEqual(['job_ids[1]: "nope" is not a UUID']);
  });
});
