/**
 * Salesforce's error bodies (REST API Developer Guide, Status Codes and Error Responses; shared/docs/
 * salesforce-api.md §6): a top-level error is a JSON array of `{message, errorCode, fields?}`; a record's error
 * inside a collections answer is `{statusCode, message, fields}`. Wording follows the captures cited there.
 */

/** A top-level error entry. */
export interface TopLevelError {
  message: string;
  errorCode: string;
  fields?: string[];
  duplicateResult?: DuplicateResult;
}

/** A per-record error entry (collections, rows). */
export interface RecordError {
  statusCode: string;
  message: string;
  fields: string[];
  duplicateResult?: DuplicateResult;
}

/** The duplicate rule's finding attached to DUPLICATES_DETECTED (§3). */
export interface DuplicateResult {
  allowSave: boolean;
  duplicateRule: string;
  duplicateRuleEntityType: string;
  errorMessage: string;
  matchResults: Array<{
    entityType: string;
    matchEngine: string;
    matchRecords: Array<{ matchConfidence: number; record: { Id: string } }>;
    rule: string;
    size: number;
    success: boolean;
  }>;
}

/** `[{message, errorCode, fields?}]`. */
export function sfErrors(message: string, errorCode: string, fields?: string[]): TopLevelError[] {
  return [{ message, errorCode, ...(fields === undefined ? {} : { fields }) }];
}

/** A record's error. */
export function recordError(statusCode: string, message: string, fields: string[] = []): RecordError {
  return { statusCode, message, fields };
}

/** 401: a missing, expired or revoked session. */
export function invalidSessionBody(): TopLevelError[] {
  return sfErrors('Session expired or invalid', 'INVALID_SESSION_ID');
}

/** 403: the org's rolling 24-hour allocation is used up (§5). */
export function requestLimitBody(
  kind: 'TotalRequests' | 'ConcurrentRequests' = 'TotalRequests',
): TopLevelError[] {
  return sfErrors(
    kind === 'TotalRequests'
      ? 'TotalRequests Limit exceeded.'
      : 'ConcurrentRequests (Concurrent API Requests) Limit exceeded.',
    'REQUEST_LIMIT_EXCEEDED',
  );
}

/** 404 for a path, object or field the org does not have. */
export function notFoundBody(): TopLevelError[] {
  return sfErrors('The requested resource does not exist', 'NOT_FOUND');
}

/** The lock error a trigger or concurrent writer causes (§6); the message names the record. */
export function lockError(id: string): RecordError {
  return recordError(
    'UNABLE_TO_LOCK_ROW',
    `unable to obtain exclusive access to this record or 1 records: ${id}`,
  );
}

/** The duplicate-rule error with the record it matched (aiosalesforce's capture, §3). */
export function duplicatesDetected(entity: string, matchedId: string): RecordError {
  const message = 'Use one of these records?';
  return {
    statusCode: 'DUPLICATES_DETECTED',
    message,
    fields: [],
    duplicateResult: {
      allowSave: false,
      duplicateRule: `Standard_${entity}_Duplicate_Rule`,
      duplicateRuleEntityType: entity,
      errorMessage: message,
      matchResults: [
        {
          entityType: entity,
          matchEngine: 'ExactMatchEngine',
          matchRecords: [{ matchConfidence: 100, record: { Id: matchedId } }],
          rule: `Standard_${entity}_Match_Rule_v1_1`,
          size: 1,
          success: true,
        },
      ],
    },
  };
}

/** The body a status answers when a test injects it without one. */
export function defaultBodyForStatus(status: number): TopLevelError[] {
  if (status === 401) return invalidSessionBody();
  if (status === 403) return requestLimitBody();
  if (status === 404) return notFoundBody();
  if (status === 503) return sfErrors('Server unavailable', 'SERVER_UNAVAILABLE');
  if (status >= 500)
    return sfErrors(
      'An unexpected error occurred. Please include this ErrorId if you contact support: 1234567-89 (-1)',
      'UNKNOWN_EXCEPTION',
    );
  return sfErrors('Bad request', 'INVALID_FIELD');
}
