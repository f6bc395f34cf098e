/**
 * The signed path of a delivery (issue 15): everything the token alone can prove is checked before the
 * body is read; then the body's memory is reserved from the budget, and it is read as a stream through
 * SHA-256, within a deadline scaled to its declared length, and compared with body_hash at the end.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isTransientCode, SignatureError } from '../errors.js';
import { decodeClaimsUnverified } from '../webhooks/decode-claims-unverified.js';
import { assertTokenTimes } from '../webhooks/parse-webhook-claims.js';
import { assertBodyHash, verifiedBody } from '../webhooks/verify-callback.js';
import { type VerifiedToken, verifyToken } from '../webhooks/verify-token.js';
import { type DeliveryAnswer, retryLater } from './delivery-answer.js';
import type { HandlerContext, RefusalToKeep } from './handler-context.js';
import { BodyReadError, bodyDeadlineMs, isJsonContentType, streamBody } from './read-body.js';

const EMPTY = Buffer.alloc(0);

/**
 * Verifies the token (signature first, times after), the media type and the declared length. Returns the
 * verified token, or the answer to send without reading the body.
 */
export async function verifyBeforeBody(
  ctx: HandlerContext,
  signature: string,
  contentType: string | undefined,
  declared: number | undefined,
): Promise<VerifiedToken | DeliveryAnswer> {
  const started = performance.now();
  let token: VerifiedToken;
  try {
    token = await verifyToken(signature, ctx.keys);
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    if (error.transient && isTransientCode(error.code)) return retryLater(error.code, error.message);
    return ctx.refuse({
      reason: error.code,
      message: error.message,
      // Unverified, so shown to the operator only: it changes nothing (no hint).
      ...claimedForDisplay(signature),
      ...(contentType !== undefined ? { contentType } : {}),
      body: EMPTY,
      vouched: false,
      ...(declared !== undefined ? { totalBytes: declared } : {}),
    });
  } finally {
    ctx.metrics?.verifySeconds.observe((performance.now() - started) / 1000);
  }
  const refuseVerified = (reason: RefusalToKeep['reason'], message: string) =>
    ctx.refuse({
      reason,
      message,
      claimedJobId: token.claims.job_id,
      ...(contentType !== undefined ? { contentType } : {}),
      body: EMPTY,
      vouched: false,
      ...(declared !== undefined ? { totalBytes: declared } : {}),
      hintJobId: token.claims.job_id,
    });
  try {
    assertTokenTimes(token.claims, ctx.now(), ctx.toleranceSeconds);
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    return refuseVerified(error.code, error.message);
  }
  if (!isJsonContentType(contentType)) {
    return refuseVerified('UNSUPPORTED_MEDIA_TYPE', 'callbacks must be application/json');
  }
  if (declared !== undefined && declared > ctx.limits.bodyLimitBytes) {
    return refuseVerified('BODY_TOO_LARGE', `body is over the limit of ${ctx.limits.bodyLimitBytes} bytes`);
  }
  return token;
}

/** Reads a verified token's body within the memory budget and the deadline, then completes the delivery. */
export async function readSignedBody(
  ctx: HandlerContext,
  token: VerifiedToken,
  request: IncomingMessage,
  declared: number | undefined,
): Promise<DeliveryAnswer> {
  const { budget, limits } = ctx;
  let held = declared ?? 0;
  if (!budget.admitNow(held) && !(await budget.reserve(held, limits.bodyBudgetWaitMs))) {
    return overBudget();
  }
  try {
    const hash = createHash('sha256');
    let body: Buffer;
    try {
      ({ body } = await streamBody(request, {
        limitBytes: limits.bodyLimitBytes,
        deadlineMs: bodyDeadlineMs(
          declared ?? limits.bodyLimitBytes,
          limits.bodyDeadlineBaseMs,
          limits.bodyMinBytesPerSecond,
        ),
        hash,
        reservedBytes: held,
        reserve: (bytes) => {
          if (!budget.tryReserve(bytes)) return false;
          held += bytes;
          return true;
        },
      }));
    } catch (error) {
      if (!(error instanceof BodyReadError)) throw error;
      switch (error.reason) {
        case 'too_large':
          return {
            ...(await ctx.refuse({
              reason: 'BODY_TOO_LARGE',
              message: `body is over the limit of ${limits.bodyLimitBytes} bytes`,
              claimedJobId: token.claims.job_id,
              body: EMPTY,
              vouched: false,
              hintJobId: token.claims.job_id,
            })),
            connection: 'close',
          };
        case 'over_budget':
          return overBudget();
        case 'timeout':
          return { ...retryLater('BODY_TIMEOUT', error.message), connection: 'close' };
        case 'aborted':
          return { ...retryLater('BODY_ABORTED', error.message), connection: 'destroy' };
      }
    }
    return await completeSigned(ctx, token, body, hash.digest());
  } finally {
    budget.release(held);
  }
}

/** Checks a verified token's body against its hash and job_id, then stores it. */
export async function completeSigned(
  ctx: HandlerContext,
  token: VerifiedToken,
  body: Buffer,
  digest: Uint8Array,
): Promise<DeliveryAnswer> {
  const { claims, kid } = token;
  let verified: ReturnType<typeof verifiedBody>;
  try {
    assertBodyHash(claims.body_hash, digest);
    verified = verifiedBody(claims, kid, body);
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    // The signature is the service's: the body it came with is kept whole (for a hash mismatch, the
    // evidence of tampering in transit), as far as the quarantine's byte budget allows.
    return ctx.refuse({
      reason: error.code,
      message: error.message,
      claimedJobId: claims.job_id,
      body,
      vouched: true,
    });
  }
  return ctx.commit(verified.text, verified.envelope, 'webhook', {
    jti: verified.jti,
    expiresAt: verified.expiresAt,
    bodyHash: claims.body_hash,
    body,
  });
}

/** 429 + Retry-After when the body does not fit the memory budget in time; none of it is read (issue 29). */
function overBudget(): DeliveryAnswer {
  return {
    ...retryLater('BODY_BUDGET', 'too many body bytes in flight; retry later'),
    connection: 'close',
  };
}

function claimedForDisplay(signature: string): { claimedJobId?: string } {
  const jobId = decodeClaimsUnverified(signature)?.job_id;
  return jobId !== undefined && jobId.length <= 200 ? { claimedJobId: jobId } : {};
}
