/**
 * The numbers of `serve`'s memory plan that the executable's main thread needs before it loads the CLI
 * (issue 29): the floor, the shares of what a ceiling leaves above it, and the V8 limits of the bounded
 * thread the CLI then runs in (cli/bounded-thread.ts). It imports only the import-free answer budget, so that
 * the main thread, which loads it, stays small; server/memory-plan.ts builds the budgets `serve` runs with on it.
 */
import { DEFAULT_ANSWER_BUDGET_BYTES, PARSED_ANSWER_GROWTH } from '../client/answer-budget.js';

const MIB = 1024 * 1024;

/**
 * What `serve` holds whatever its budgets, under a ceiling: ~130 MiB idle 3 s after start and one delivery
 * (the node binary and libraries mapped from disk, ~47 MiB; the main thread's small isolate; the serve
 * thread's and the store worker's heaps with their code; SQLite's two connections; `bench/serve-idle.mjs`),
 * and ~30 MiB that V8 lets garbage reach under load before it collects: the serve thread's heap is bounded
 * ({@link serveThreadLimits}), so that part is its young generation and the read buffers of the bodies in
 * flight (array buffers, outside the heap). A refused body is not read (receiver/create-receiver.ts): it
 * costs nothing here. Under the page flood with a 256 MiB ceiling serve peaked at 224 MiB with this floor
 * (`bench/receiver.mjs`, bench/RESULTS.md); 190 MiB was the floor while serve ran in the main thread.
 */
export const MEMORY_FLOOR_BYTES = 160 * MIB;
/** Least room a ceiling must leave above the floor. */
export const MIN_SPARE_BYTES = 8 * MIB;
/** Parts of what the ceiling leaves above the floor. */
export const MEMORY_SHARES = Object.freeze({
  bodies: 0.55,
  prepared_jobs: 0.2,
  normalization_queue: 0.15,
  answers: 0.1,
});

/** The names of the budgets, as `hooksync_memory_budget_bytes{budget}` shows them. */
export type MemoryBudgetName = keyof typeof MEMORY_SHARES;

/**
 * The least answer budget and cap under a ceiling: a finder's copy of a page (~0.5–1 MB) must stay
 * readable, or reconcile could never recover a page; under a small ceiling this passes the `answers` share.
 */
export const MIN_ANSWER_BYTES = MIB;

/**
 * Bytes of memory each budget may use under a ceiling of `ceilingBytes`. Throws RangeError when the
 * ceiling leaves less than {@link MIN_SPARE_BYTES} above the floor.
 */
export function memoryBudgets(ceilingBytes: number): Readonly<Record<MemoryBudgetName, number>> {
  const spare = ceilingBytes - MEMORY_FLOOR_BYTES;
  if (spare < MIN_SPARE_BYTES) {
    throw new RangeError(
      `a memory ceiling of ${Math.round(ceilingBytes / MIB)} MiB leaves no room above serve's floor`,
    );
  }
  return Object.freeze({
    bodies: Math.floor(spare * MEMORY_SHARES.bodies),
    prepared_jobs: Math.floor(spare * MEMORY_SHARES.prepared_jobs),
    normalization_queue: Math.floor(spare * MEMORY_SHARES.normalization_queue),
    answers: Math.floor(spare * MEMORY_SHARES.answers),
  });
}

/** The answer bytes `serve` reads at once under a ceiling (its `answers` budget, parsed), unless set. */
export function plannedAnswerBudgetBytes(budgets: Readonly<Record<MemoryBudgetName, number>>): number {
  return Math.min(
    DEFAULT_ANSWER_BUDGET_BYTES,
    Math.max(MIN_ANSWER_BYTES, Math.floor(budgets.answers / PARSED_ANSWER_GROWTH)),
  );
}

/** V8 limits of a worker thread, in MB (the fields of node:worker_threads' ResourceLimits used here). */
export interface ThreadHeapLimits {
  readonly maxYoungGenerationSizeMb: number;
  readonly maxOldGenerationSizeMb?: number;
}

/**
 * The serve thread's young generation, MB: 4 MiB semi-spaces. Smaller ones cost collections (1 MiB
 * semi-spaces: ~15 ms of GC a page); this size cost nothing measurable against V8's default (up to 16 MiB
 * semi-spaces), which lets the young generation take 48 MiB of the process under load.
 */
export const SERVE_YOUNG_GENERATION_MB = 12;
/**
 * The serve thread's old generation beside its budgets, MB: the code, the receiver's state and metrics, the
 * parsed key set and what a collection leaves alive between deliveries, with room to spare.
 */
export const SERVE_HEAP_BASE_MB = 48;

/**
 * The serve thread's V8 limits. Under a ceiling: the old generation holds {@link SERVE_HEAP_BASE_MB}, the
 * `bodies` budget (what the bodies in flight cost on the request thread) and the answers read at once,
 * parsed (`answerBudgetBytes`, else the planned budget); a bounded heap is what makes V8 collect before it
 * has grown to several times what is alive. Without a ceiling, V8's default old generation (a fixed bound of
 * 1024 MiB cost 1.36× the CPU of a page: V8 sizes its collections by it).
 */
export function serveThreadLimits(
  ceilingBytes: number | undefined,
  answerBudgetBytes?: number,
): ThreadHeapLimits {
  if (ceilingBytes === undefined)
    return Object.freeze({ maxYoungGenerationSizeMb: SERVE_YOUNG_GENERATION_MB });
  const budgets = memoryBudgets(ceilingBytes);
  const answersBytes = Math.max(
    budgets.answers,
    PARSED_ANSWER_GROWTH * (answerBudgetBytes ?? plannedAnswerBudgetBytes(budgets)),
  );
  return Object.freeze({
    maxYoungGenerationSizeMb: SERVE_YOUNG_GENERATION_MB,
    maxOldGenerationSizeMb: SERVE_HEAP_BASE_MB + Math.ceil((budgets.bodies + answersBytes) / MIB),
  });
}

/**
 * A launch's young generation, MB (V8 lets it grow to 48). A launch allocates fast and keeps little; a large
 * young generation is room taken for garbage, and a small one is collected often.
 */
export const LAUNCH_YOUNG_GENERATION_MB = 3;
/**
 * A launch's old generation beside the answers in flight, MB: the code and the run's own state (about 22 MB
 * live after a full collection over a long reveal file), with room to spare.
 */
export const LAUNCH_HEAP_BASE_MB = 48;

/**
 * The V8 limits of `launch <operation>` and `watches run`: a small young generation, and an old generation
 * that holds `answerBudgetBytes` parsed on top of {@link LAUNCH_HEAP_BASE_MB}.
 */
export function launchThreadLimits(answerBudgetBytes: number): ThreadHeapLimits {
  return Object.freeze({
    maxYoungGenerationSizeMb: LAUNCH_YOUNG_GENERATION_MB,
    maxOldGenerationSizeMb: LAUNCH_HEAP_BASE_MB + Math.ceil((PARSED_ANSWER_GROWTH * answerBudgetBytes) / MIB),
  });
}
