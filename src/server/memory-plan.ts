/**
 * `serve`'s memory plan (issue 29): from the memory ceiling (HOOKSYNC_MEMORY_MB, else the container's
 * limit), the budgets it already has, sized so that their sum plus the idle footprint stays under it:
 *
 * - `bodies`: deliveries in flight on the request thread, from the first body byte to the answer. A body
 *   reserves its declared length before it is read (429 + Retry-After when it does not fit); one body byte
 *   costs about {@link BODY_BYTE_COST} bytes on the way (the bytes, the text, the parsed tree, the prepared
 *   job, the copy to the store's thread and the garbage they leave until the next collection).
 * - `prepared_jobs` and `normalization_queue`: the store worker's heap beyond its own floor, a hard V8
 *   limit (`resourceLimits`): jobs awaiting their commit, and the rows the normalizer is handed in memory
 *   (bounded in envelope characters; past it, it reads envelopes back from the database).
 * - `answers`: answers read from outside (the service's finder copies for reconcile and unsigned callbacks,
 *   the CRMs' answers, a CRM watch source's pages): one answer budget (the answer bytes read at once),
 *   shared by the service's client and every CRM client, and the cap on one answer
 *   ({@link planAnswerLimits}).
 *
 * The floor, the shares and the serve thread's heap limits are in memory-budgets.ts (which the executable's
 * main thread loads alone). Without a ceiling, the defaults of each part hold (as before issue 29). A
 * ceiling only ever lowers them.
 */
import type { ResourceLimits } from 'node:worker_threads';
import { AnswerBudget, type AnswerLimits, DEFAULT_ANSWER_BUDGET_BYTES } from '../client/answer-budget.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../client/read-capped-body.js';
import {
  DEFAULT_BODY_BUDGET_BYTES,
  DEFAULT_MAX_WAITING,
  WAITING_READ_AHEAD_BYTES,
} from '../receiver/create-body-budget.js';
import type { ReceiverMetrics } from '../receiver/create-metrics.js';
import { DEFAULT_BODY_LIMIT_BYTES } from '../receiver/read-body.js';
import { DEFAULT_HELD_CHARS } from '../storage/job-store/job-store.js';
import { DEFAULT_STORE_WORKER_LIMITS } from '../storage/job-store/worker-job-store.js';
import { type MemoryBudgetName, memoryBudgets, plannedAnswerBudgetBytes } from './memory-budgets.js';

export { MEMORY_FLOOR_BYTES, type MemoryBudgetName } from './memory-budgets.js';

const MIB = 1024 * 1024;
/**
 * Memory one body byte in flight costs on the request thread: the bytes, the text (two bytes a character
 * for most pages), the parsed tree, the prepared job and its copy to the store's thread; measured.
 */
export const BODY_BYTE_COST = 5;
/**
 * Share of the `bodies` budget held for open connections (issue 43): a connection costs memory before its
 * first body byte (its socket, its parser and the header bytes it has sent), so the connections the server
 * accepts come out of the same budget as the bodies they carry.
 */
export const CONNECTION_SHARE_OF_BODIES = 0.25;
/** What the deliveries waiting for room in the bodies budget may hold at most: one socket read each. */
export const WAITING_BYTES = DEFAULT_MAX_WAITING * WAITING_READ_AHEAD_BYTES;
/** Largest request header block accepted under a ceiling, bytes (a callback's headers take ~1.5 KB). */
export const PLANNED_MAX_HEADER_BYTES = 8 * 1024;
/** A connection's memory beside its header bytes: socket, parser, request objects; measured ~5 KB. */
export const CONNECTION_BASE_BYTES = 6 * 1024;
/**
 * Time for a request's headers under a ceiling, ms: every connection is unauthenticated until its headers
 * are in, so this is how long an unknown sender can hold a connection slot without sending a token.
 */
export const PLANNED_HEADERS_TIMEOUT_MS = 5_000;
/** The store worker's heap with its code loaded, before it holds any job. */
const STORE_WORKER_FLOOR_MB = 24;
/** Bytes of held rows per envelope character (a 530 K-character page's rows take ~0.2–0.3 MB). */
const HELD_BYTES_PER_CHAR = 0.5;

/** What `serve` runs with. */
export interface MemoryPlan {
  /** The ceiling, bytes; undefined: none. */
  readonly ceilingBytes: number | undefined;
  /** Bytes of memory each budget may use; undefined without a ceiling. */
  readonly budgets: Readonly<Record<MemoryBudgetName, number>> | undefined;
  /**
   * The receiver's body budget (body bytes admitted in flight at once) and body limit (never more than the
   * budget, which could otherwise never admit it); empty without a ceiling (the defaults hold).
   */
  readonly receiverLimits: { readonly bodyBudgetBytes?: number; readonly bodyLimitBytes?: number };
  /**
   * The server's connection limits: open connections, header bytes and the headers timeout; empty without a
   * ceiling (Node's defaults: no connection limit, 16 KiB of headers; the receiver's 10 s).
   */
  readonly connectionLimits: {
    readonly maxConnections?: number;
    readonly maxHeaderBytes?: number;
    readonly headersTimeoutMs?: number;
  };
  /** The service client's cap on one answer and on the answers read at once; empty without a ceiling. */
  readonly clientLimits: { readonly maxResponseBytes?: number; readonly answerBudgetBytes?: number };
  /** What the normalizer may hold in memory, envelope characters. */
  readonly heldChars: number;
  /** The store worker's heap limits. */
  readonly storeWorkerLimits: ResourceLimits;
}

/** The plan for a ceiling of `ceilingBytes` (undefined: none). Throws RangeError below the floor. */
export function planMemory(ceilingBytes: number | undefined): MemoryPlan {
  if (ceilingBytes === undefined) {
    return Object.freeze({
      ceilingBytes,
      budgets: undefined,
      receiverLimits: {},
      connectionLimits: {},
      clientLimits: {},
      heldChars: DEFAULT_HELD_CHARS,
      storeWorkerLimits: DEFAULT_STORE_WORKER_LIMITS,
    });
  }
  const budgets = memoryBudgets(ceilingBytes);
  const connectionBytes = Math.floor(budgets.bodies * CONNECTION_SHARE_OF_BODIES);
  const bodyBudgetBytes = Math.min(
    DEFAULT_BODY_BUDGET_BYTES,
    Math.floor((budgets.bodies - connectionBytes) / BODY_BYTE_COST),
  );
  // Deliveries waiting for room in the bodies budget are connections that hold one socket read of their
  // body each: the line's worst case comes out of the connections' share first.
  const maxConnections = Math.max(
    16,
    Math.floor((connectionBytes - WAITING_BYTES) / (CONNECTION_BASE_BYTES + PLANNED_MAX_HEADER_BYTES)),
  );
  const workerHeapMb = STORE_WORKER_FLOOR_MB + (budgets.prepared_jobs + budgets.normalization_queue) / MIB;
  const answerBudgetBytes = plannedAnswerBudgetBytes(budgets);
  return Object.freeze({
    ceilingBytes,
    budgets,
    receiverLimits: { bodyBudgetBytes, bodyLimitBytes: Math.min(DEFAULT_BODY_LIMIT_BYTES, bodyBudgetBytes) },
    connectionLimits: {
      maxConnections,
      maxHeaderBytes: PLANNED_MAX_HEADER_BYTES,
      headersTimeoutMs: PLANNED_HEADERS_TIMEOUT_MS,
    },
    clientLimits: {
      answerBudgetBytes,
      maxResponseBytes: Math.min(DEFAULT_MAX_RESPONSE_BYTES, answerBudgetBytes),
    },
    heldChars: Math.min(DEFAULT_HELD_CHARS, Math.floor(budgets.normalization_queue / HELD_BYTES_PER_CHAR)),
    storeWorkerLimits: Object.freeze({
      ...DEFAULT_STORE_WORKER_LIMITS,
      maxOldGenerationSizeMb: Math.floor(workerHeapMb),
    }),
  });
}

/** Shows the plan in `hooksync_memory_budget_bytes{budget}` (nothing without a ceiling). */
export function applyMemoryPlan(plan: MemoryPlan, metrics: ReceiverMetrics): void {
  const shown = {
    ceiling: plan.ceilingBytes,
    ...plan.budgets,
    bodies_admitted: plan.receiverLimits.bodyBudgetBytes,
    connections_bytes:
      plan.connectionLimits.maxConnections === undefined
        ? undefined
        : plan.connectionLimits.maxConnections * (CONNECTION_BASE_BYTES + PLANNED_MAX_HEADER_BYTES),
  };
  for (const [budget, bytes] of Object.entries(shown)) {
    if (bytes !== undefined) metrics.memoryBudget.set({ budget }, bytes);
  }
}

/**
 * serve's one answer budget, shared by the service's client and every CRM client (destinations, owner
 * lookups, a watch's CRM source), and the cap on one CRM or source answer. Under a ceiling the cap is the
 * budget itself: what the serve thread's heap holds parsed ({@link serveThreadLimits} in memory-budgets.ts),
 * 1 MiB under 256 MiB, so that a CRM's answer can never be more than the plan made room for; without one,
 * each CRM client's own constant holds. `configured`: the service client's limits as serve passes them
 * (the config's settings over the plan's), so that the budget is the one the service's client would make.
 */
export function planAnswerLimits(
  plan: MemoryPlan,
  configured: { readonly maxResponseBytes?: number; readonly answerBudgetBytes?: number },
): AnswerLimits {
  const bytes = Math.floor(
    configured.answerBudgetBytes ??
      Math.max(DEFAULT_ANSWER_BUDGET_BYTES, configured.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES),
  );
  return Object.freeze({
    budget: new AnswerBudget(bytes),
    maxBytes: plan.ceilingBytes === undefined ? undefined : bytes,
  });
}
