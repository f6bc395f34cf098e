/**
 * Salesforce's answers, their shapes checked with zod before use (a malformed answer is a failed attempt), and
 * what an answer that is not a success means for the destination (shared/docs/salesforce-api.md §6): retry
 * within the call (5xx, network, the concurrent-request limit), wait until the org's rolling allocation frees
 * calls (TotalRequests), pause until resumed (a session a new grant cannot fix, a refused permission), or fail
 * the records at fault. Per-record errors are classified the same way: UNABLE_TO_LOCK_ROW is retried, the rest
 * fail only their record, with Salesforce's code and message.
 */

import { z } from 'zod';
import { parseAnswer } from '../../contract/answer-shape.js';
import { boundOutsideText } from '../../contract/outside-text.js';
import type { CrmTrouble } from '../../errors.js';

/** How long a destination whose org refused a call for its daily allocation waits before it probes again. */
export const TOTAL_REQUESTS_PROBE_MS = 15 * 60_000;

/** One entry of a top-level error body: `[{message, errorCode, fields?}]`. */
export const topLevelErrorSchema = z.looseObject({
  message: z.string(),
  errorCode: z.string(),
  fields: z.array(z.string()).optional(),
});

/** The matched records of a duplicate rule (DUPLICATES_DETECTED). */
const duplicateResultSchema = z.looseObject({
  matchResults: z
    .array(
      z.looseObject({
        matchRecords: z.array(z.looseObject({ record: z.looseObject({ Id: z.string() }) })).default([]),
      }),
    )
    .default([]),
});

/** One error of a record in a collections answer: `{statusCode, message, fields}`. */
export const recordErrorSchema = z.looseObject({
  statusCode: z.string(),
  message: z.string(),
  fields: z.array(z.string()).default([]),
  duplicateResult: duplicateResultSchema.optional(),
});
export type RecordError = z.output<typeof recordErrorSchema>;

/** A collections upsert answer: one result per record, in order. */
export const collectionResultsSchema = z.array(
  z.looseObject({
    id: z.string().nullish(),
    success: z.boolean(),
    created: z.boolean().optional(),
    errors: z.array(recordErrorSchema).default([]),
  }),
);
export type CollectionResult = z.output<typeof collectionResultsSchema>[number];

/** A page of SOQL results. */
export const queryPageSchema = z.looseObject({
  totalSize: z.number(),
  done: z.boolean(),
  nextRecordsUrl: z.string().startsWith('/services/data/').optional(),
  records: z.array(z.record(z.string(), z.unknown())),
});
export type QueryPage = z.output<typeof queryPageSchema>;

/** `/limits`, the part read. */
export const limitsSchema = z.looseObject({
  DailyApiRequests: z.looseObject({ Max: z.number(), Remaining: z.number() }),
});

/** Reads a top-level error body, or undefined when it is not Salesforce's JSON array. */
export function parseErrorBody(text: string): z.output<typeof topLevelErrorSchema>[] | undefined {
  try {
    const parsed = parseAnswer(z.array(topLevelErrorSchema), JSON.parse(text));
    return parsed.ok ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Salesforce's code and message, short enough for a log line and `destinations list`. */
export function errorMessage(status: number, text: string): string {
  const first = parseErrorBody(text)?.[0];
  if (first !== undefined)
    return boundOutsideText(`HTTP ${status} ${first.errorCode}: ${first.message}`, 300);
  const body = boundOutsideText(text.slice(0, 600).replace(/\s+/g, ' ').trim(), 300);
  return body === '' ? `HTTP ${status}` : `HTTP ${status}: ${body}`;
}

/**
 * Classifies a non-2xx answer. A 401 reaching here already had its one new grant (the client re-grants
 * first); `credentials` names where the credentials come from, for the pause message.
 */
export function classifyTrouble(options: {
  readonly status: number;
  readonly text: string;
  readonly credentials: string;
}): CrmTrouble {
  const { status, text } = options;
  const error = errorMessage(status, text);
  const code = parseErrorBody(text)?.[0]?.errorCode;
  if (code === 'REQUEST_LIMIT_EXCEEDED') {
    // "ConcurrentRequests" frees in seconds; "TotalRequests" only as the rolling 24 h moves on (§5).
    if (/concurrent/i.test(text)) return { kind: 'retry', error };
    return { kind: 'wait', policy: 'TotalRequests', error, waitMs: TOTAL_REQUESTS_PROBE_MS };
  }
  if (status === 401) {
    return {
      kind: 'pause',
      error: `Salesforce refused the session even after a new grant (401): check ${options.credentials}, then resume. ${error}`,
    };
  }
  if (status === 403) {
    return {
      kind: 'pause',
      error: `Salesforce refused the integration user (403): grant it API access and the objects' permissions, then resume. ${error}`,
    };
  }
  if (status >= 500 || status === 408) return { kind: 'retry', error };
  return { kind: 'fail', error };
}

/** What to do about one record's errors in a collections answer. */
export type RecordTrouble =
  | { readonly kind: 'retry'; readonly error: string }
  | { readonly kind: 'fail'; readonly error: string; readonly duplicateOf: readonly string[] };

/** Record codes worth sending again unchanged (a lock held by a trigger or another writer, §6). */
const RETRYABLE_RECORD_CODES: ReadonlySet<string> = new Set(['UNABLE_TO_LOCK_ROW']);

/** Classifies a failed record: retry it (lock), or fail its events with Salesforce's words. */
export function classifyRecordErrors(errors: readonly RecordError[]): RecordTrouble {
  const text = errors
    .map((e) => `${e.statusCode}: ${e.message}${e.fields.length > 0 ? ` [${e.fields.join(', ')}]` : ''}`)
    .join('; ');
  const error = text === '' ? 'Salesforce refused the record without saying why' : boundOutsideText(text);
  if (errors.length > 0 && errors.every((e) => RETRYABLE_RECORD_CODES.has(e.statusCode)))
    return { kind: 'retry', error };
  const duplicateOf = errors.flatMap((e) =>
    (e.duplicateResult?.matchResults ?? []).flatMap((m) => m.matchRecords.map((r) => r.record.Id)),
  );
  return {
    kind: 'fail',
    error: duplicateOf.length > 0 ? `${error} (possible duplicate of ${duplicateOf.join(', ')})` : error,
    duplicateOf,
  };
}
