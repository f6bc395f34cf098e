/**
 * The job store `hooksync serve` uses: the same store (group commit, deferred normalization) running on a
 * worker thread with its own connection (store-worker.ts), behind the JobStore interface. Jobs are prepared
 * here, where the verifier has just parsed them, and cross as plain data, many per message.
 */
import { randomUUID } from 'node:crypto';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { type Logger, pino } from 'pino';
import { StorageError } from '../../errors.js';
import { assertQuarantineInput, type QuarantineInput } from '../quarantine/write-quarantine.js';
import type { JobStore, JobStoreStats, StoreResult } from './job-store.js';
import { type JobToEncode, prepareJobForWorker } from './prepare-job.js';
import type {
  FromStoreWorker,
  StoreWorkerInit,
  ToStoreWorker,
  WireError,
  WireOperation,
  WireResult,
} from './store-worker-protocol.js';

/** Wait before starting a new worker after one stopped, growing to {@link MAX_RESTART_DELAY_MS}. */
const FIRST_RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 5000;
/** How long close() waits for the worker to finish what it holds before terminating it. */
const CLOSE_TIMEOUT_MS = 30_000;

/** Knobs of {@link startWorkerJobStore}. */
export interface WorkerJobStoreOptions {
  /** The database the worker opens (already migrated by the caller). */
  readonly databaseUrl: string;
  /** Clock in epoch ms for stored timestamps (default Date.now): it crosses with each job. */
  readonly now?: () => number;
  readonly logger?: Logger;
  /** Called as the worker's normalizer writes rows. */
  readonly onNormalized?: (report: { normalized: number }) => void;
  /** Called once per answered batch in which a commit wrote a job revision (new outbox events). */
  readonly onStored?: () => void;
  /**
   * The worker's script (default {@link defaultStoreWorkerUrl}: store-worker.js beside this module). Code
   * run from the TypeScript sources (tests) passes the built one: worker threads run JavaScript only.
   */
  readonly workerUrl?: URL;
  /** What the worker's normalizer may hold in memory, in envelope characters (default: the job store's). */
  readonly heldChars?: number;
  /** The worker's heap limits (default {@link DEFAULT_STORE_WORKER_LIMITS}). */
  readonly resourceLimits?: ResourceLimits;
}

/**
 * The worker's young generation: 4 MiB instead of V8's 16–32 MiB. What it allocates either dies within a
 * batch or is a prepared job waiting for its commit; the smaller nursery takes ~16 MB off `serve`'s idle
 * footprint (issue 29). A worker past its limits stops and is restarted; what it held is answered 500.
 */
export const DEFAULT_STORE_WORKER_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  maxYoungGenerationSizeMb: 4,
});

/** A JobStore on a worker thread. */
export interface WorkerJobStore extends JobStore {
  /** False while its worker is (re)starting. */
  ready(): boolean;
}

/** The store worker's script: store-worker.js beside this module, as built and shipped. */
export function defaultStoreWorkerUrl(): URL {
  return new URL('./store-worker.js', import.meta.url);
}

function fromWire(error: WireError): StorageError {
  return new StorageError(error.message, { transient: error.transient });
}

interface Waiting<T> {
  resolve(value: T): void;
  reject(error: StorageError): void;
}

/** Starts the worker and resolves once it has opened the database. */
export async function startWorkerJobStore(options: WorkerJobStoreOptions): Promise<WorkerJobStore> {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? pino({ level: 'silent' });
  const init: StoreWorkerInit = {
    databaseUrl: options.databaseUrl,
    logLevel: logger.level,
    ...(options.heldChars !== undefined ? { heldChars: options.heldChars } : {}),
  };
  const workerUrl = options.workerUrl ?? defaultStoreWorkerUrl();
  const waiting = new Map<number, Waiting<StoreResult | undefined>>();
  const settling = new Map<number, () => void>();
  let outbox: Array<{ id: number; op: WireOperation }> = [];
  let nextId = 1;
  let stats: JobStoreStats = {
    transactions: 0,
    committedItems: 0,
    failedBatches: 0,
    failedItems: 0,
    largestBatch: 0,
  };
  let worker: Worker | undefined;
  let isReady = false;
  let closing = false;
  let restartDelayMs = FIRST_RESTART_DELAY_MS;
  let onClosed: (() => void) | undefined;

  function send(message: ToStoreWorker): void {
    worker!.postMessage(message);
  }

  /**
   * Sends what this turn submitted in one message, once the worker is up. Each job's envelope (compressed,
   * or its bytes for the worker to compress) is transferred, not copied: nothing here reads it again.
   */
  function flush(): void {
    if (!isReady || outbox.length === 0) return;
    const ops = outbox;
    outbox = [];
    const transfer: ArrayBuffer[] = [];
    for (const { op } of ops) {
      if (op.type !== 'job') continue;
      const { buffer, byteOffset, byteLength } =
        'envelopeZ' in op.job ? op.job.envelopeZ : op.job.envelopeBytes;
      // Only a buffer the view covers whole is ours to give away (never a slice of a shared pool).
      if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) {
        transfer.push(buffer);
      }
    }
    worker!.postMessage({ t: 'ops', ops } satisfies ToStoreWorker, transfer);
  }

  function writeLog(line: string): void {
    try {
      const { level, time: _time, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
      const label = typeof level === 'number' ? logger.levels.labels[level] : undefined;
      if (label === undefined) return;
      (logger[label as 'info'] as (obj: object, msg?: string) => void)(
        fields,
        typeof msg === 'string' ? msg : undefined,
      );
    } catch {
      logger.warn({ line: line.slice(0, 200) }, 'unreadable log line from the store worker');
    }
  }

  /** Settles the submitters of `results`; true when a commit among them wrote a job revision. */
  function settleResults(results: readonly WireResult[]): boolean {
    let written = false;
    for (const result of results) {
      const entry = waiting.get(result.id);
      waiting.delete(result.id);
      if (result.ok) {
        written ||= result.value?.revision != null;
        entry?.resolve(result.value);
      } else entry?.reject(fromWire(result.error));
    }
    return written;
  }

  function onMessage(message: FromStoreWorker): void {
    switch (message.t) {
      case 'done':
        stats = message.stats;
        if (settleResults(message.results)) options.onStored?.();
        return;
      case 'settled':
        settling.get(message.id)?.();
        settling.delete(message.id);
        return;
      case 'normalized':
        options.onNormalized?.(message);
        return;
      case 'log':
        writeLog(message.line);
        return;
      case 'closed':
        onClosed?.();
        return;
      case 'ready':
      case 'failed':
        return;
    }
  }

  /**
   * Fails what a stopped worker held (not committed as far as we know: the sender retries). Work not yet
   * sent to it waits for the next worker, unless the store is closing.
   */
  function abandonPending(reason: string): void {
    const error = new StorageError(`the store worker stopped (${reason}); retry later`, { transient: true });
    const unsent = closing ? new Set<number>() : new Set(outbox.map((entry) => entry.id));
    for (const [id, entry] of waiting) {
      if (unsent.has(id)) continue;
      entry.reject(error);
      waiting.delete(id);
    }
    if (closing) outbox = [];
    for (const done of settling.values()) done();
    settling.clear();
  }

  function spawn(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const started = new Worker(workerUrl, {
        workerData: init,
        resourceLimits: options.resourceLimits ?? DEFAULT_STORE_WORKER_LIMITS,
      });
      worker = started;
      let up = false;
      started.on('message', (message: FromStoreWorker) => {
        if (!up && message.t === 'ready') {
          up = true;
          isReady = true;
          restartDelayMs = FIRST_RESTART_DELAY_MS;
          flush();
          resolve();
        } else if (!up && message.t === 'failed') {
          reject(fromWire(message.error));
        } else {
          onMessage(message);
        }
      });
      started.on('error', (error) => logger.error({ err: error }, 'store worker failed'));
      started.on('exit', (code) => {
        isReady = false;
        if (!up) {
          reject(
            new StorageError(`the store worker exited (${code}) before it was ready`, { transient: true }),
          );
          return;
        }
        if (closing) {
          abandonPending('closed');
          onClosed?.();
          return;
        }
        abandonPending(`exit code ${code}`);
        restart();
      });
    });
  }

  function restart(): void {
    const delay = restartDelayMs;
    restartDelayMs = Math.min(MAX_RESTART_DELAY_MS, restartDelayMs * 2);
    logger.error({ delayMs: delay }, 'store worker stopped; starting a new one');
    setTimeout(() => {
      if (closing) return;
      spawn().catch((error: unknown) => {
        logger.error({ err: error }, 'store worker could not start');
        restart();
      });
    }, delay).unref();
  }

  function enqueue(op: WireOperation): Promise<StoreResult | undefined> {
    if (closing) {
      return Promise.reject(new StorageError('the job store is closed (shutting down)', { transient: true }));
    }
    const id = nextId++;
    if (outbox.length === 0) setImmediate(flush);
    outbox.push({ id, op });
    return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  }

  await spawn();

  return {
    ready: () => isReady,
    store(input) {
      // The verifier parsed the envelope here already: its check and rows are worked out here too. Lean
      // rows (migration 008) cost less to copy to the worker than parsing the envelope again there. A
      // small envelope is compressed there, a large one here (prepareJobForWorker). Not an async function:
      // a suspended one keeps its input (the page's text and tree) alive until the commit (issue 29).
      const atMs = now();
      let job: JobToEncode;
      try {
        job = prepareJobForWorker(input, atMs);
      } catch (error) {
        return Promise.reject(error);
      }
      return enqueue({ type: 'job', job, atMs }) as Promise<StoreResult>;
    },
    async quarantine(input: QuarantineInput) {
      assertQuarantineInput(input);
      await enqueue({ type: 'quarantine', input, id: randomUUID(), atMs: now() });
    },
    stats: () => stats,
    settled() {
      if (!isReady) return Promise.resolve();
      flush();
      const id = nextId++;
      return new Promise<void>((resolve) => {
        settling.set(id, resolve);
        send({ t: 'settle', id });
      });
    },
    async close() {
      if (closing) return;
      closing = true;
      if (worker === undefined || !isReady) {
        await worker?.terminate();
        abandonPending('closed');
        return;
      }
      flush();
      const closed = new Promise<void>((resolve) => {
        onClosed = resolve;
      });
      send({ t: 'close' });
      const timer = setTimeout(() => void worker?.terminate(), CLOSE_TIMEOUT_MS);
      await closed;
      clearTimeout(timer);
    },
  };
}
