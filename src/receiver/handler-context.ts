/**
 * What the signed and unsigned paths of a delivery (receive-signed.ts, receive-unsigned.ts) work with:
 * built once, whole and frozen, by createDeliveryHandler (handle-delivery.ts), which they do not import.
 */
import type { RefusalCode } from '../errors.js';
import type { KeySetCache } from '../webhooks/key-set-cache.js';
import type { BodyBudget } from './create-body-budget.js';
import type { ReceiverMetrics } from './create-metrics.js';
import type { Refusal } from './create-quarantine-policy.js';
import type { UnsignedFetcher } from './create-unsigned-fetcher.js';
import type { DeliveryAnswer } from './delivery-answer.js';
import type { DeliveryLimits } from './delivery-limits.js';

/** A refusal to quarantine and answer, with the ledger entry to mark when its token verified. */
export type RefusalToKeep = Omit<Refusal, 'reason'> & {
  reason: RefusalCode;
  message: string;
  hintJobId?: string;
};

/** A signed delivery's token, with the body's exact bytes (kept as evidence should the jti be reused). */
export interface CommittedToken {
  readonly jti: string;
  readonly expiresAt: Date;
  readonly bodyHash: string;
  readonly body: Uint8Array;
}

/** Stores a verified envelope and answers once it is committed (or why it is not). */
export type CommitDelivery = (
  text: string,
  envelope: unknown,
  source: 'webhook' | 'finder',
  token?: CommittedToken,
) => Promise<DeliveryAnswer>;

/** What the signed and unsigned paths share. */
export interface HandlerContext {
  readonly keys: KeySetCache;
  readonly metrics: ReceiverMetrics | undefined;
  readonly limits: DeliveryLimits;
  readonly budget: BodyBudget;
  readonly toleranceSeconds: number;
  readonly now: () => number;
  /** Present when HOOKSYNC_UNSIGNED is fetch. */
  readonly fetcher: UnsignedFetcher | undefined;
  refuse(refused: RefusalToKeep): Promise<DeliveryAnswer>;
  /** For a traced delivery, the commit that keeps its traceparent with the job's outbox events. */
  readonly commit: CommitDelivery;
}
