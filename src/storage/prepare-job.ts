/**
 * Everything about a job that can be worked out before the transaction: identity, kind, status, schema
 * fit and payload hash. Pure CPU work, done in the caller's turn so the write lock is held only to write.
 */
import { checkEnvelopeForKind } from '../contract/envelope.js';
import { claimedJobId, detectJobKind } from '../contract/job-kind.js';
import { parseJsonText } from '../contract/json.js';
import { SIGNATURE_LIFETIME_SECONDS } from '../contract/limits.js';
import { computeBodyHash } from '../contract/webhook-signature.js';
import type { JobKind, JobSource } from './database.js';
import { asRecord, member, textOrNull } from './normalize-values.js';

/** What {@link JobStore.store} takes. */
export interface StoreInput {
  /** The envelope exactly as it arrived: stored verbatim. */
  readonly envelopeText: string;
  /** The same envelope already parsed with parseJsonText (skips a second parse). */
  readonly envelope?: unknown;
  readonly source: JobSource;
  /** The callback token's jti, guarding against its replay. */
  readonly jti?: string;
  /** The token's exp; default: now + the signature lifetime (15 minutes). */
  readonly tokenExpiresAt?: Date;
}

/** A job ready to write. */
export interface PreparedJob {
  readonly jobId: string;
  readonly kind: JobKind;
  /** As sent; '' when the envelope has no string status. */
  readonly status: string;
  readonly contextId: string | null;
  readonly startDate: string | null;
  readonly stopDate: string | null;
  readonly envelopeText: string;
  readonly envelope: unknown;
  readonly payloadHash: string;
  readonly source: JobSource;
  readonly schemaValid: boolean;
  readonly schemaIssues: string | null;
  readonly jti: string | undefined;
  /** Epoch ms when the token can no longer verify (when its jti may be forgotten). */
  readonly tokenExpiresAtMs: number;
}

/** Stored status of an envelope whose status is missing or not a string. */
export const MISSING_STATUS = '';

const SOURCES: ReadonlySet<string> = new Set(['webhook', 'finder', 'launch']);

/** A string member as text (U+0000 dropped: Postgres text cannot hold it), else null. */
function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? textOrNull(value) : null;
}

/**
 * Works out a {@link PreparedJob}. Throws TypeError for a caller's mistake: text that is not JSON, an
 * envelope without input.task.job_id (the receiver quarantines those), a bad source, jti or date.
 */
export function prepareJob(input: StoreInput, nowMs: number): PreparedJob {
  if (typeof input?.envelopeText !== 'string') throw new TypeError('store: envelopeText must be a string');
  if (!SOURCES.has(input.source)) throw new TypeError(`store: unknown source ${String(input.source)}`);
  if (input.jti !== undefined && (typeof input.jti !== 'string' || input.jti === '')) {
    throw new TypeError('store: jti must be a non-empty string');
  }
  const expiresAt = input.tokenExpiresAt?.getTime() ?? nowMs + SIGNATURE_LIFETIME_SECONDS * 1000;
  if (!Number.isFinite(expiresAt)) throw new TypeError('store: tokenExpiresAt is not a valid date');
  let envelope = input.envelope;
  if (!('envelope' in input) || envelope === undefined) {
    try {
      envelope = parseJsonText(input.envelopeText);
    } catch (error) {
      throw new TypeError('store: envelopeText is not JSON (quarantine it instead)', { cause: error });
    }
  }
  const jobId = claimedJobId(envelope);
  if (jobId === undefined || jobId === '' || jobId.includes('\u0000')) {
    throw new TypeError('store: the envelope has no usable input.task.job_id (quarantine it instead)');
  }
  const kind = detectJobKind(envelope);
  const check = checkEnvelopeForKind(envelope, kind);
  const root = asRecord(envelope);
  const status = member(root, 'status');
  const task = asRecord(member(asRecord(member(root, 'input')), 'task'));
  return {
    jobId,
    kind,
    status: stringOrNull(status) ?? MISSING_STATUS,
    contextId: stringOrNull(member(task, 'context_id')),
    startDate: stringOrNull(member(root, 'start_date')),
    stopDate: stringOrNull(member(root, 'stop_date')),
    envelopeText: input.envelopeText,
    envelope,
    payloadHash: computeBodyHash(input.envelopeText),
    source: input.source,
    schemaValid: check.ok,
    schemaIssues: check.ok ? null : JSON.stringify(check.issues),
    jti: input.jti,
    tokenExpiresAtMs: expiresAt,
  };
}
