/**
 * The unsigned path of a delivery (HOOKSYNC_UNSIGNED, issue 15 and 19): an unsigned body is never
 * stored and never read whole. At most a prefix is read, enough to find the job_id it claims; with
 * `reject` it is refused and the prefix quarantined, with `fetch` the finder's copy is what is stored.
 */
import type { IncomingMessage } from 'node:http';
import type { JobKind } from '../contract/enums.js';
import { isJobId } from '../contract/job-id.js';
import { claimedJobId, detectJobKind } from '../contract/job-kind.js';
import { parseJsonText } from '../contract/json.js';
import { type DeliveryAnswer, retryLater } from './delivery-answer.js';
import type { HandlerContext } from './handler-context.js';
import { BodyReadError, bodyDeadlineMs, isJsonContentType, readPrefix } from './read-body.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const EMPTY = Buffer.alloc(0);

/** Reads the prefix of an unsigned body within the memory budget and a short deadline, or answers. */
export async function readUnsignedPrefix(
  ctx: HandlerContext,
  request: IncomingMessage,
  contentType: string | undefined,
): Promise<{ prefix: Buffer; complete: boolean } | DeliveryAnswer> {
  const { budget, limits } = ctx;
  if (!isJsonContentType(contentType)) {
    const answer = await ctx.refuse({
      reason: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'callbacks must be application/json',
      ...(contentType !== undefined ? { contentType } : {}),
      body: EMPTY,
      vouched: false,
    });
    return { ...answer, connection: 'close' };
  }
  const reserved = limits.unsignedPrefixBytes;
  if (!budget.tryReserve(reserved)) {
    return {
      ...retryLater('BODY_BUDGET', 'too many body bytes in flight; retry later'),
      connection: 'close',
    };
  }
  try {
    return await readPrefix(
      request,
      limits.unsignedPrefixBytes,
      bodyDeadlineMs(limits.unsignedPrefixBytes, limits.bodyDeadlineBaseMs, limits.bodyMinBytesPerSecond),
    );
  } catch (error) {
    if (!(error instanceof BodyReadError)) throw error;
    return {
      ...retryLater(error.reason === 'timeout' ? 'BODY_TIMEOUT' : 'BODY_ABORTED', error.message),
      connection: error.reason === 'timeout' ? 'close' : 'destroy',
    };
  } finally {
    budget.release(reserved);
  }
}

/** Answers an unsigned callback from its prefix: refused (reject), or fetched from its finder (fetch). */
export async function answerUnsigned(
  ctx: HandlerContext,
  prefix: Buffer,
  complete: boolean,
  contentType: string | undefined,
  totalBytes: number | undefined,
): Promise<DeliveryAnswer> {
  const claim = claimFromPrefix(prefix, complete);
  const connection = complete ? {} : { connection: 'close' as const };
  const keep = {
    ...(claim.jobId !== undefined ? { claimedJobId: claim.jobId } : {}),
    ...(claim.kind !== undefined ? { kind: claim.kind } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
    body: prefix,
    vouched: false,
    ...(totalBytes !== undefined ? { totalBytes } : {}),
  };
  if (ctx.fetcher === undefined) {
    const answer = await ctx.refuse({
      ...keep,
      reason: 'SIGNATURE_MISSING',
      message: 'callback carries no X-Webhook-Signature',
    });
    return { ...answer, ...connection };
  }
  if (claim.malformed !== undefined) {
    return {
      ...(await ctx.refuse({ ...keep, reason: claim.malformed, message: 'body is not UTF-8 JSON' })),
      ...connection,
    };
  }
  const { jobId, kind } = claim;
  if (jobId === undefined || (kind !== 'job_change' && kind !== 'search_contact')) {
    const answer = await ctx.refuse({
      ...keep,
      reason: 'NO_FINDER',
      message:
        kind === 'company_reveal'
          ? 'unsigned company reveal: the interface has no finder to fetch it from'
          : 'unsigned callback whose job has no finder',
    });
    return { ...answer, ...connection };
  }
  const answer = await ctx.fetcher.fetch(kind, jobId);
  if (answer.outcome === 'refused') {
    const kept = await ctx.refuse({
      ...keep,
      reason: answer.reason as 'FINDER_REFUSED',
      message: String(answer.body.message ?? answer.reason),
    });
    return { ...kept, ...connection };
  }
  return { ...answer, ...connection };
}

interface PrefixClaim {
  jobId?: string;
  kind?: JobKind;
  /** Set when the whole body was read and is not UTF-8 JSON. */
  malformed?: 'BODY_NOT_UTF8' | 'BODY_MALFORMED_JSON';
}

/** The job an unsigned body claims: parsed when it was read whole, else read off its prefix. */
function claimFromPrefix(prefix: Buffer, complete: boolean): PrefixClaim {
  if (complete) {
    let text: string;
    try {
      text = utf8.decode(prefix);
    } catch {
      return { malformed: 'BODY_NOT_UTF8' };
    }
    let envelope: unknown;
    try {
      envelope = parseJsonText(text);
    } catch {
      return { malformed: 'BODY_MALFORMED_JSON' };
    }
    const jobId = claimedJobId(envelope);
    return { ...(isJobId(jobId) ? { jobId } : {}), kind: detectJobKind(envelope) };
  }
  // A page larger than the prefix: the claim is only read, never trusted (the finder's copy is stored,
  // and only when its job_id is this one).
  const text = prefix.toString('utf8');
  const jobId = /"job_id"\s*:\s*"([^"\\]{1,200})"/.exec(text)?.[1];
  return { ...(isJobId(jobId) ? { jobId } : {}), kind: kindFromText(text) };
}

function kindFromText(text: string): JobKind {
  if (/"(persons|page_number|page_size|title_filters)"\s*:/.test(text)) return 'search_contact';
  if (/"(job_change_status|professional_email|contact_full_name)"\s*:/.test(text)) return 'job_change';
  if (/"(ip_geo|confidence_score)"\s*:/.test(text)) return 'company_reveal';
  return 'unknown';
}
