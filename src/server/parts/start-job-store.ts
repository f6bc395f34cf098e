/**
 * serve's job store: on a worker thread of its own (default), or on this thread (`storeThread: 'main'`,
 * and always for an in-memory database, whose connection no other thread can share).
 */
import type { Logger } from 'pino';
import type { ReceiverMetrics } from '../../receiver/create-metrics.js';
import { createJobStore, type JobStore } from '../../storage/job-store/job-store.js';
import { startWorkerJobStore } from '../../storage/job-store/worker-job-store.js';
import type { HooksyncDatabase } from '../../storage/open-database.js';
import type { MemoryPlan } from '../memory-plan.js';
import type { JobsStoredSignal } from './jobs-stored-signal.js';
import type { Closable } from './serve-part.js';

/** Starts the store; `ready()` is false while its worker is down. */
export async function startJobStore(options: {
  readonly databaseUrl: string;
  readonly database: HooksyncDatabase;
  readonly thread: 'worker' | 'main';
  readonly workerUrl?: URL | undefined;
  readonly metrics: ReceiverMetrics;
  readonly logger: Logger;
  readonly now: () => number;
  /** The normalizer's held rows and the worker's heap limits (issue 29). */
  readonly memory: Pick<MemoryPlan, 'heldChars' | 'storeWorkerLimits'>;
  /** Told when a commit wrote jobs, or the normalizer gave them their rows: their events may be due. */
  readonly jobsStored: JobsStoredSignal;
}): Promise<Closable & { readonly store: JobStore; ready(): boolean }> {
  const { logger, now, metrics } = options;
  if (options.thread === 'main' || options.databaseUrl === ':memory:') {
    const store = createJobStore({
      database: options.database,
      logger,
      now,
      onStored: () => options.jobsStored.notify(),
    });
    return { store, ready: () => true, close: () => store.close() };
  }
  const store = await startWorkerJobStore({
    databaseUrl: options.databaseUrl,
    now,
    logger,
    onNormalized: ({ normalized }) => {
      metrics.normalized.inc(normalized);
      if (normalized > 0) options.jobsStored.notify();
    },
    onStored: () => options.jobsStored.notify(),
    heldChars: options.memory.heldChars,
    resourceLimits: options.memory.storeWorkerLimits,
    ...(options.workerUrl ? { workerUrl: options.workerUrl } : {}),
  });
  return { store, ready: () => store.ready(), close: () => store.close() };
}
