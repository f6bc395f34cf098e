import { describe, expect, it } from 'vitest';
import {
  classifyRecordErrors,
  classifyTrouble,
  collectionResultsSchema,
  TOTAL_REQUESTS_PROBE_MS,
} from '../../../../src/destinations/salesforce/salesforce-answer.js';

const body = (errorCode: string, message: string) => JSON.stringify([{ message, errorCode }]);
const classify = (status: number, text: string) =>
  classifyTrouble({ status, text, credentials: 'SF_CLIENT_ID, SF_CLIENT_SECRET' });

describe('classifyTrouble', () => {
  it('maps each documented answer to what the destination does', () => {
    expect(classify(403, body('REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.'))).toEqual({
      kind: 'wait',
      policy: 'TotalRequests',
      waitMs: TOTAL_REQUESTS_PROBE_MS,
      error: 'HTTP 403 REQUEST_LIMIT_EXCEEDED: TotalRequests Limit exceeded.',
    });
    expect(
      classify(
        403,
        body('REQUEST_LIMIT_EXCEEDED', 'ConcurrentRequests (Concurrent API Requests) Limit exceeded.'),
      ).kind,
    ).toBe('retry');
    expect(classify(401, body('INVALID_SESSION_ID', 'Session expired or invalid'))).toMatchObject({
      kind: 'pause',
      error: expect.stringContaining('check SF_CLIENT_ID, SF_CLIENT_SECRET'),
    });
    expect(
      classify(403, body('API_DISABLED_FOR_ORG', 'API is not enabled for this Organization or Partner')).kind,
    ).toBe('pause');
    expect(classify(503, body('SERVER_UNAVAILABLE', 'Server unavailable')).kind).toBe('retry');
    expect(classify(502, '<html>Bad gateway</html>')).toEqual({
      kind: 'retry',
      error: 'HTTP 502: <html>Bad gateway</html>',
    });
    expect(
      classify(400, body('INVALID_FIELD', "No such column 'Foo__c' on sobject of type Contact")),
    ).toEqual({
      kind: 'fail',
      error: "HTTP 400 INVALID_FIELD: No such column 'Foo__c' on sobject of type Contact",
    });
    expect(classify(404, '').error).toBe('HTTP 404');
  });
});

describe('classifyRecordErrors', () => {
  const parse = (errors: unknown[]) => collectionResultsSchema.parse([{ success: false, errors }])[0]!.errors;

  it('retries a lock, fails the rest with the code, message and fields', () => {
    expect(
      classifyRecordErrors(
        parse([
          {
            statusCode: 'UNABLE_TO_LOCK_ROW',
            message: 'unable to obtain exclusive access to this record',
            fields: [],
          },
        ]),
      ).kind,
    ).toBe('retry');
    expect(
      classifyRecordErrors(
        parse([
          {
            statusCode: 'REQUIRED_FIELD_MISSING',
            message: 'Required fields are missing: [LastName]',
            fields: ['LastName'],
          },
        ]),
      ),
    ).toEqual({
      kind: 'fail',
      error: 'REQUIRED_FIELD_MISSING: Required fields are missing: [LastName] [LastName]',
      duplicateOf: [],
    });
    const mixed = parse([
      { statusCode: 'UNABLE_TO_LOCK_ROW', message: 'x', fields: [] },
      { statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'Title is required for VPs', fields: [] },
    ]);
    expect(classifyRecordErrors(mixed).kind).toBe('fail');
    expect(classifyRecordErrors([]).error).toBe('Salesforce refused the record without saying why');
  });

  it('names the matched records of DUPLICATES_DETECTED', () => {
    const trouble = classifyRecordErrors(
      parse([
        {
          statusCode: 'DUPLICATES_DETECTED',
          message: 'Use one of these records?',
          fields: [],
          duplicateResult: {
            matchResults: [
              { matchRecords: [{ matchConfidence: 100, record: { Id: '003Hs00000000001AAA' } }] },
            ],
          },
        },
      ]),
    );
    expect(trouble).toEqual({
      kind: 'fail',
      error: 'DUPLICATES_DETECTED: Use one of these records? (possible duplicate of 003Hs00000000001AAA)',
      duplicateOf: ['003Hs00000000001AAA'],
    });
  });
});
