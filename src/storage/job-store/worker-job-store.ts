/**
 * The job store `hooksync serve` uses: the same store (group commit, deferred normalization) running on a
 * worker thread with its own connection (store-worker.ts), behind the JobStore interface. Jobs are prepared
 * here, where the verifier has just parsed them, and cross as plain data, many per message. A worker idle
 * for {@link DEFAULT_RETIRE_AFTER_MS} is retired and the next operation starts a new one (issue 42).
 */
import { randomUUID } from 'node:crypto';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { type Logger, pino } from 'pino';
import { StorageError } from '../../errors.js';
import { DICTIONARY_MAX_BYTES } from '../envelope-codec.js';
import { assertQuarantineInput, type QuarantineInput } from '../quarantine/write-quarantine.js';
import type { JobStore, JobStoreStats, StoreInput, StoreResult } from './job-store.js';
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
/**
 * How long the worker stays with nothing to do before it is retired (issue 42): an idle `serve` then holds
 * two isolates instead of three (~20 MB less), and the next operation starts a new worker first.
 */
export const DEFAULT_RETIRE_AFTER_MS = 15_000;

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
  /** Retire the worker after this long with nothing to do (default {@link DEFAULT_RETIRE_AFTER_MS}). */
  readonly retireAfterMs?: number;
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

/**
 * Where the store's worker is: starting (spawned, not yet ready: at start, after a stop or a retirement),
 * ready, retiring (idle, told to close), retired (none: the next operation starts one), stopped (a new one
 * starts after the restart delay), closing (told to finish what it holds), closed.
 */
type WorkerState =
  | { readonly phase: 'starting'; readonly worker: Worker; readonly woken: boolean }
  | { readonly phase: 'ready'; readonly worker: Worker }
  | { readonly phase: 'retiring'; readonly worker: Worker }
  | { readonly phase: 'retired' }
  | { readonly phase: 'stopped' }
  | { readonly phase: 'closing'; readonly worker: Worker; readonly closed: () => void }
  | { readonly phase: 'closed' };

/** The main-thread side of the store worker: the operations in flight, and the worker's {@link WorkerState}. */
class WorkerJobStoreClient implements WorkerJobStore {
  readonly #options: WorkerJobStoreOptions;
  readonly #init: StoreWorkerInit;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #waiting = new Map<number, Waiting<StoreResult | undefined>>();
  readonly #settling = new Map<number, () => void>();
  /** What this turn submitted, sent in one message once the worker is ready. */
  #outbox: Array<{ id: number; op: WireOperation }> = [];
  #nextId = 1;
  #stats: JobStoreStats = {
    transactions: 0,
    committedItems: 0,
    failedBatches: 0,
    failedItems: 0,
    largestBatch: 0,
  };
  #restartDelayMs = FIRST_RESTART_DELAY_MS;
  #retireTimer: ReturnType<typeof setTimeout> | undefined;
  #state: WorkerState = { phase: 'stopped' };

  constructor(options: WorkerJobStoreOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? pino({ level: 'silent' });
    this.#init = {
      databaseUrl: options.databaseUrl,
      logLevel: this.#logger.level,
      ...(options.heldChars !== undefined ? { heldChars: options.heldChars } : {}),
    };
  }

  ready(): boolean {
    // A retired store is ready: the next operation only waits for a new worker (a woken one is no outage).
    const state = this.#state;
    const { phase } = state;
    return (
      phase === 'ready' ||
      phase === 'retiring' ||
      phase === 'retired' ||
      (phase === 'starting' && state.woken)
    );
  }

  store(input: StoreInput): Promise<StoreResult> {
    // The verifier parsed the envelope here already: its check and rows are worked out here too. Lean
    // rows (migration 008) cost less to copy to the worker than parsing the envelope again there. The
    // envelope is compressed there (prepareJobForWorker), its bytes transferred. Not an async function:
    // a suspended one keeps its input (the page's text and tree) alive until the commit (issue 29).
    const atMs = this.#now();
    let job: JobToEncode;
    try {
      job = prepareJobForWorker(input, atMs);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue({ type: 'job', job, atMs }) as Promise<StoreResult>;
  }

  async quarantine(input: QuarantineInput): Promise<void> {
    assertQuarantineInput(input);
    await this.#enqueue({ type: 'quarantine', input, id: randomUUID(), atMs: this.#now() });
  }

  stats(): JobStoreStats {
    return this.#stats;
  }

  settled(): Promise<void> {
    const state = this.#state;
    if (state.phase !== 'ready') return Promise.resolve();
    this.#flush();
    clearTimeout(this.#retireTimer);
    const id = this.#nextId++;
    return new Promise<void>((resolve) => {
      this.#settling.set(id, resolve);
      state.worker.postMessage({ t: 'settle', id } satisfies ToStoreWorker);
    });
  }

  async close(): Promise<void> {
    const state = this.#state;
    clearTimeout(this.#retireTimer);
    if (state.phase === 'closing' || state.phase === 'closed') return;
    if (state.phase === 'retiring') {
      // Already told to close: wait for it.
      await new Promise<void>((resolve) => {
        this.#state = { phase: 'closing', worker: state.worker, closed: resolve };
      });
      return;
    }
    if (state.phase !== 'ready') {
      this.#state = { phase: 'closed' };
      if (state.phase === 'starting') await state.worker.terminate();
      this.#abandonPending('closed');
      return;
    }
    this.#flush();
    const { worker } = state;
    const closed = new Promise<void>((resolve) => {
      this.#state = { phase: 'closing', worker, closed: resolve };
    });
    worker.postMessage({ t: 'close' } satisfies ToStoreWorker);
    const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
    await closed;
    clearTimeout(timer);
  }

  /** Starts a worker and resolves once it has opened the database. */
  start(woken = false): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const started = new Worker(this.#options.workerUrl ?? defaultStoreWorkerUrl(), {
        workerData: this.#init,
        resourceLimits: this.#options.resourceLimits ?? DEFAULT_STORE_WORKER_LIMITS,
      });
      this.#state = { phase: 'starting', worker: started, woken };
      const starting = () => this.#state.phase === 'starting' && this.#state.worker === started;
      started.on('message', (message: FromStoreWorker) => {
        if (starting() && message.t === 'ready') {
          this.#state = { phase: 'ready', worker: started };
          this.#restartDelayMs = FIRST_RESTART_DELAY_MS;
          this.#flush();
          this.#retireWhenIdle();
          resolve();
        } else if (starting() && message.t === 'failed') {
          reject(fromWire(message.error));
        } else {
          this.#onMessage(message);
        }
      });
      started.on('error', (error) => this.#logger.error({ err: error }, 'store worker failed'));
      started.on('exit', (code) => {
        const state = this.#state;
        switch (state.phase) {
          case 'starting':
            this.#state = { phase: 'stopped' };
            reject(
              new StorageError(`the store worker exited (${code}) before it was ready`, { transient: true }),
            );
            return;
          case 'ready':
            clearTimeout(this.#retireTimer);
            this.#state = { phase: 'stopped' };
            this.#abandonPending(`exit code ${code}`);
            this.#restart();
            return;
          case 'retiring':
            // Everything it was sent was answered; what came since waits in the outbox for a new one.
            this.#state = { phase: 'retired' };
            this.#logger.debug('store worker retired (idle)');
            if (this.#outbox.length > 0) this.#wake();
            return;
          case 'closing':
            this.#state = { phase: 'closed' };
            this.#abandonPending('closed');
            state.closed();
            return;
          case 'stopped':
          case 'closed':
            // Terminated while starting, by close(): the start was rejected above, or close() saw to it.
            reject(new StorageError('the job store is closed (shutting down)', { transient: true }));
            return;
        }
      });
    });
  }

  /** Starts a worker for what was submitted while none ran (retired); a failure is a stop. */
  #wake(): void {
    this.start(true).catch((error: unknown) => {
      this.#logger.error({ err: error }, 'store worker could not start');
      if (this.#state.phase === 'stopped') this.#restart();
    });
  }

  /**
   * (Re)arms the retirement: once nothing is in flight for retireAfterMs, the worker is asked to settle its
   * normalizer and then to close; it is retired if nothing came meanwhile.
   */
  #retireWhenIdle(): void {
    clearTimeout(this.#retireTimer);
    if (this.#waiting.size > 0 || this.#outbox.length > 0 || this.#settling.size > 0) return;
    this.#retireTimer = setTimeout(() => {
      const state = this.#state;
      if (state.phase !== 'ready' || this.#waiting.size > 0 || this.#outbox.length > 0) return;
      const settling = this.settled();
      const lastId = this.#nextId;
      void settling.then(() => {
        if (this.#state !== state) return;
        // Work came while it settled: idle from when that is answered, not now.
        if (this.#nextId !== lastId) return this.#retireWhenIdle();
        this.#state = { phase: 'retiring', worker: state.worker };
        state.worker.postMessage({ t: 'close' } satisfies ToStoreWorker);
      });
    }, this.#options.retireAfterMs ?? DEFAULT_RETIRE_AFTER_MS);
    this.#retireTimer.unref();
  }

  #restart(): void {
    const delay = this.#restartDelayMs;
    this.#restartDelayMs = Math.min(MAX_RESTART_DELAY_MS, this.#restartDelayMs * 2);
    this.#logger.error({ delayMs: delay }, 'store worker stopped; starting a new one');
    setTimeout(() => {
      if (this.#state.phase !== 'stopped') return;
      this.start().catch((error: unknown) => {
        this.#logger.error({ err: error }, 'store worker could not start');
        if (this.#state.phase === 'stopped') this.#restart();
      });
    }, delay).unref();
  }

  #closing(): boolean {
    return this.#state.phase === 'closing' || this.#state.phase === 'closed';
  }

  #enqueue(op: WireOperation): Promise<StoreResult | undefined> {
    if (this.#closing()) {
      return Promise.reject(new StorageError('the job store is closed (shutting down)', { transient: true }));
    }
    const id = this.#nextId++;
    clearTimeout(this.#retireTimer);
    if (this.#state.phase === 'retired' && this.#outbox.length === 0) this.#wake();
    if (this.#outbox.length === 0) setImmediate(() => this.#flush());
    this.#outbox.push({ id, op });
    return new Promise((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
  }

  /**
   * Sends what this turn submitted in one message, once the worker is up. A page's envelope bytes (for the
   * worker to compress) are transferred, not copied: the worker gives them back on a replay. A small one's
   * (at most DICTIONARY_MAX_BYTES: a reveal) are copied with the message: handing over a buffer (detached
   * here, wrapped again there) cost more than copying a reveal's 2.8 KB (issue 42).
   */
  #flush(): void {
    const state = this.#state;
    if (state.phase !== 'ready' || this.#outbox.length === 0) return;
    const ops = this.#outbox;
    this.#outbox = [];
    const transfer: ArrayBuffer[] = [];
    for (const { op } of ops) {
      if (op.type !== 'job') continue;
      const { buffer, byteOffset, byteLength } = op.job.envelopeBytes;
      if (byteLength <= DICTIONARY_MAX_BYTES) continue;
      // Only a buffer the view covers whole is ours to give away (never a slice of a shared pool).
      if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) {
        transfer.push(buffer);
      }
    }
    state.worker.postMessage({ t: 'ops', ops } satisfies ToStoreWorker, transfer);
  }

  #writeLog(line: string): void {
    const logger = this.#logger;
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
  #settleResults(results: readonly WireResult[]): boolean {
    let written = false;
    for (const result of results) {
      const entry = this.#waiting.get(result.id);
      this.#waiting.delete(result.id);
      if (result.ok) {
        written ||= result.value?.revision != null;
        entry?.resolve(result.value);
      } else entry?.reject(fromWire(result.error));
    }
    return written;
  }

  #onMessage(message: FromStoreWorker): void {
    switch (message.t) {
      case 'done':
        this.#stats = message.stats;
        if (this.#settleResults(message.results)) this.#options.onStored?.();
        this.#retireWhenIdle();
        return;
      case 'settled':
        this.#settling.get(message.id)?.();
        this.#settling.delete(message.id);
        return;
      case 'normalized':
        this.#options.onNormalized?.(message);
        this.#retireWhenIdle();
        return;
      case 'log':
        this.#writeLog(message.line);
        return;
      case 'closed':
        if (this.#state.phase === 'closing') this.#state.closed();
        // A retiring worker has closed its database: it has nothing left to finish.
        else if (this.#state.phase === 'retiring') void this.#state.worker.terminate();
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
  #abandonPending(reason: string): void {
    const error = new StorageError(`the store worker stopped (${reason}); retry later`, { transient: true });
    const closing = this.#closing();
    const unsent = closing ? new Set<number>() : new Set(this.#outbox.map((entry) => entry.id));
    for (const [id, entry] of this.#waiting) {
      if (unsent.has(id)) continue;
      entry.reject(error);
      this.#waiting.delete(id);
    }
    if (closing) this.#outbox = [];
    for (const done of this.#settling.values()) done();
    this.#settling.clear();
  }
}

/** Starts the worker and resolves once it has opened the database. */
export async function startWorkerJobStore(options: WorkerJobStoreOptions): Promise<WorkerJobStore> {
  const store = new WorkerJobStoreClient(options);
  await store.start();
  return store;
}
