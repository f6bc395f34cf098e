/**
 * Everything about a job that can be worked out before the transaction: identity, kind, status, payload
 * hash, schema check and the normalized rows. Pure CPU work, done in the caller's turn (for `serve`, on the
 * thread that has just parsed the envelope to verify it) so that the writer only writes. A PreparedJob is
 * plain data: it crosses to the store's worker thread as is.
 */

import type { JobKind } from '../../contract/enums.js';
import { checkEnvelopeForKind } from '../../contract/envelope.js';
import { claimedJobId, detectJobKind } from '../../contract/job-kind.js';
import { parseJsonText, withoutByteOrderMark } from '../../contract/json.js';
import { SIGNATURE_LIFETIME_SECONDS } from '../../contract/limits.js';
import { computeBodyHash } from '../../contract/webhook-signature.js';
import { encodeBytes } from '../envelope-codec.js';
import { type NormalizedRows, normalizeEnvelope } from '../normalize-envelope.js';
import { asRecord, member, textOrNull } from '../normalize-values.js';
import type { JobSource } from './job-store-tables.js';

/** What {@link JobStore.store} takes. */
export interface StoreInput {
  /** The envelope exactly as it arrived: stored verbatim. */
  readonly envelopeText: string;
  /**
   * The same envelope as the UTF-8 bytes that arrived, when the caller holds them (a verified body):
   * compressed as they are, instead of encoding the text to bytes again. Must be exactly the text's bytes.
   * Handed over: `serve`'s store transfers a page's to its worker thread (a buffer of their own over 16 KiB
   * is detached here), and gives them back on a replay ({@link StoreResult.envelopeBytes}).
   */
  readonly envelopeBytes?: Uint8Array;
  /** The same envelope already parsed with parseJsonText (skips a second parse). */
  readonly envelope?: unknown;
  readonly source: JobSource;
  /** The callback token's jti, guarding against its replay. */
  readonly jti?: string;
  /** The token's exp; default: now + the signature lifetime (15 minutes). */
  readonly tokenExpiresAt?: Date;
  /**
   * The unpadded base64url SHA-256 of the envelope's exact bytes, when the caller already holds it (a
   * verified callback's body_hash, checked against those bytes); computed here otherwise.
   */
  readonly payloadHash?: string;
  /** The W3C traceparent of the delivery storing it (tracing on): kept with its outbox events (issue 40). */
  readonly traceParent?: string;
}

/** The schema check of an envelope, as stored in jobs.schema_valid / schema_issues. */
export interface SchemaCheck {
  readonly valid: boolean;
  /** JSON array of issue strings when not valid. */
  readonly issues: string | null;
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
  /**
   * The envelope's length in characters (what the deferred store's thresholds count). The text itself is
   * not kept: what is written is its compressed form and its rows, and a 500 KB string would otherwise
   * be copied to the store's worker thread with every page.
   */
  readonly envelopeChars: number;
  /** The envelope as stored: compressed by encodeEnvelope (a plain Uint8Array: it crosses threads as is). */
  readonly envelopeZ: Uint8Array;
  /** Of the original bytes, not the compressed ones. */
  readonly payloadHash: string;
  readonly source: JobSource;
  readonly schemaCheck: SchemaCheck;
  /**
   * The rows derived from the envelope (their received_at is stamped when written); absent when left to
   * the store's normalizer (a large envelope, whose rows cost more to copy to the worker than to derive).
   */
  readonly rows?: NormalizedRows;
  readonly jti: string | undefined;
  /** Epoch ms when the token can no longer verify (when its jti may be forgotten). */
  readonly tokenExpiresAtMs: number;
  /** See {@link StoreInput.traceParent}. */
  readonly traceParent?: string;
}

/** Stored status of an envelope whose status is missing or not a string. */
export const MISSING_STATUS = '';
/** received_at of rows derived before the transaction that writes them knows its time. */
const UNSTAMPED = '';

const SOURCES: ReadonlySet<string> = new Set(['webhook', 'finder', 'launch']);

/** A string member as text (U+0000 dropped: Postgres text cannot hold it), else null. */
function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? textOrNull(value) : null;
}

/** The schema check of `envelope` as the kind `kind`. */
export function checkSchema(envelope: unknown, kind: JobKind): SchemaCheck {
  const check = checkEnvelopeForKind(envelope, kind);
  return check.ok ? { valid: true, issues: null } : { valid: false, issues: JSON.stringify(check.issues) };
}

/** A Uint8Array view of `bytes` (no copy): what a Buffer becomes anyway once cloned to another thread. */
function plainBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const PAYLOAD_HASH = /^[A-Za-z0-9_-]{43}$/;
/** A W3C traceparent (version 00): anything else is not kept. */
const TRACE_PARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * Works out a {@link PreparedJob}, with its rows unless `deriveRows` is false. Throws TypeError for a
 * caller's mistake: text that is not JSON, an envelope without input.task.job_id (the receiver
 * quarantines those), a bad source, jti, hash or date.
 */
export function prepareJob(input: StoreInput, nowMs: number, deriveRows = true): PreparedJob {
  const fields = prepareFields(input, nowMs, deriveRows);
  return { ...fields, envelopeZ: plainBytes(encodeBytes(bytesOf(input), fields.kind)) };
}

/**
 * A job prepared on the thread that verified it, for `serve`'s store worker: its envelope is left as its
 * bytes for the worker to compress ({@link encodeJob}), so that compression costs the thread that reads
 * requests nothing: the dictionary deflate of a reveal (issue 31), and brotli on a page, 2-3 ms of a page's
 * ~10 on that thread (issue 42). Bytes in a buffer of their own (a page's body) are the caller's, handed over
 * as they are (the worker-job-store transfers a page's); a slice of a shared pool (a small body) is copied
 * into one of its own, so that the message copies those bytes and not the pool's whole slab.
 */
export function prepareJobForWorker(input: StoreInput, nowMs: number): JobToEncode {
  const fields = prepareFields(input, nowMs, true);
  const bytes = bytesOf(input);
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return { ...fields, envelopeBytes: own ? plainBytes(bytes) : new Uint8Array(bytes) };
}

/** A job whose envelope is still its bytes, waiting to be compressed by the store's thread. */
export type JobToEncode = Omit<PreparedJob, 'envelopeZ'> & { readonly envelopeBytes: Uint8Array };

/**
 * `job` with its envelope compressed, told the job's kind: a company reveal is deflated against the part of
 * the dictionary that is a reveal (envelope-codec.ts).
 */
export function encodeJob(job: JobToEncode): PreparedJob {
  const { envelopeBytes, ...rest } = job;
  return { ...rest, envelopeZ: plainBytes(encodeBytes(envelopeBytes, job.kind)) };
}

/** The envelope's exact bytes: the ones that arrived when the caller holds them, else its text's. */
function bytesOf(input: StoreInput): Uint8Array {
  return input.envelopeBytes ?? Buffer.from(input.envelopeText, 'utf8');
}

function prepareFields(
  input: StoreInput,
  nowMs: number,
  deriveRows: boolean,
): Omit<PreparedJob, 'envelopeZ'> {
  if (typeof input?.envelopeText !== 'string') throw new TypeError('store: envelopeText must be a string');
  if (!SOURCES.has(input.source)) throw new TypeError(`store: unknown source ${String(input.source)}`);
  if (input.jti !== undefined && (typeof input.jti !== 'string' || input.jti === '')) {
    throw new TypeError('store: jti must be a non-empty string');
  }
  if (input.payloadHash !== undefined && !PAYLOAD_HASH.test(input.payloadHash)) {
    throw new TypeError('store: payloadHash must be an unpadded base64url SHA-256');
  }
  const expiresAt = input.tokenExpiresAt?.getTime() ?? nowMs + SIGNATURE_LIFETIME_SECONDS * 1000;
  if (!Number.isFinite(expiresAt)) throw new TypeError('store: tokenExpiresAt is not a valid date');
  let envelope = input.envelope;
  if (!('envelope' in input) || envelope === undefined) {
    try {
      envelope = parseJsonText(withoutByteOrderMark(input.envelopeText));
    } catch (error) {
      throw new TypeError('store: envelopeText is not JSON (quarantine it instead)', { cause: error });
    }
  }
  const jobId = claimedJobId(envelope);
  if (jobId === undefined || jobId === '' || jobId.includes('\u0000')) {
    throw new TypeError('store: the envelope has no usable input.task.job_id (quarantine it instead)');
  }
  const kind = detectJobKind(envelope);
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
    envelopeChars: input.envelopeText.length,
    payloadHash: input.payloadHash ?? computeBodyHash(input.envelopeText),
    source: input.source,
    schemaCheck: checkSchema(envelope, kind),
    ...(deriveRows ? { rows: normalizeEnvelope(envelope, kind, jobId, UNSTAMPED) } : {}),
    jti: input.jti,
    tokenExpiresAtMs: expiresAt,
    ...(typeof input.traceParent === 'string' && TRACE_PARENT.test(input.traceParent)
      ? { traceParent: input.traceParent }
      : {}),
  };
}
