/**
 * The store worker: a thread of its own that holds `hooksync serve`'s write connection and runs the job
 * store (group commit, then deferred normalization) there, so that committing, fsync and deriving rows
 * never block the thread that reads requests and verifies signatures. Its SQLite connection keeps the
 * durable defaults (WAL, synchronous=FULL): an fsync blocks only this thread. Started by
 * worker-job-store.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { encodeBytes } from '../envelope-codec.js';
import { type HooksyncDatabase, openDatabase } from '../open-database.js';
import { type CommitLoopStore, createJobStore } from './job-store.js';
import type { JobToEncode, PreparedJob } from './prepare-job.js';
import {
  type FromStoreWorker,
  type StoreWorkerInit,
  type ToStoreWorker,
  toWireError,
  type WireResult,
} from './store-worker-protocol.js';

if (parentPort === null) throw new Error('store-worker.js runs as a worker thread');
const port = parentPort;
const init = workerData as StoreWorkerInit;
const post = (message: FromStoreWorker): void => port.postMessage(message);

// Lines go to the main thread, which writes them with its own logger (one sink, one redaction).
const logger = pino(
  { level: init.logLevel, base: undefined },
  { write: (line: string) => post({ t: 'log', line }) },
);

let database: HooksyncDatabase | undefined;
let store: CommitLoopStore | undefined;
let outbox: WireResult[] = [];

/**
 * `job` with its envelope compressed (as is when it already was): encodeJob, told the job's kind, which
 * lets a company reveal be deflated against the part of the dictionary that is a reveal (envelope-codec.ts).
 */
function encoded(job: JobToEncode): PreparedJob {
  if ('envelopeZ' in job) return job;
  const { envelopeBytes, ...rest } = job;
  return { ...rest, envelopeZ: encodeBytes(envelopeBytes, job.kind) };
}

/** Sends the results gathered in this turn in one message: a committed batch settles many at once. */
function answer(result: WireResult): void {
  if (outbox.length === 0) {
    queueMicrotask(() => {
      const results = outbox;
      outbox = [];
      post({ t: 'done', results, stats: store!.stats() });
    });
  }
  outbox.push(result);
}

async function close(): Promise<void> {
  await store?.close();
  await database?.close();
  post({ t: 'closed' });
  port.close();
}

port.on('message', (message: ToStoreWorker) => {
  switch (message.t) {
    case 'ops':
      for (const { id, op } of message.ops) {
        store!.submit(op.type === 'job' ? { ...op, job: encoded(op.job) } : op).then(
          (value) => answer({ id, ok: true, value }),
          (error: unknown) => answer({ id, ok: false, error: toWireError(error) }),
        );
      }
      return;
    case 'settle':
      void store!.settled().then(() => post({ t: 'settled', id: message.id }));
      return;
    case 'close':
      void close();
      return;
  }
});

try {
  database = await openDatabase(init.databaseUrl, { logger });
  store = createJobStore({
    database,
    logger,
    normalization: 'deferred',
    ...(init.heldChars !== undefined ? { heldChars: init.heldChars } : {}),
    onNormalized: ({ normalized }) => post({ t: 'normalized', normalized }),
  });
  post({ t: 'ready' });
} catch (error) {
  post({ t: 'failed', error: toWireError(error) });
  await database?.close();
  port.close();
}
