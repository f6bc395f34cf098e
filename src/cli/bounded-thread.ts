/**
 * `hooksync serve`, `launch <operation>`, `watches run` and `export` run in a worker thread whose heap V8 bounds
 * (`resourceLimits`), started by main.ts before the CLI's code is loaded. In one thread V8 lets the heap
 * grow to several times what is alive before it collects (under a flood of large pages, `serve`'s request
 * thread reached 115–172 MiB of heap and array buffers whatever the memory ceiling), and a process cannot
 * bound its own heap without changing V8's flags. The thread runs the whole CLI on the command line; the
 * main thread only pipes its streams and passes the interrupt on. This module stays small: the main thread
 * loads it alone (with memory-budgets.ts, which imports only the import-free answer sizes, and the readers of
 * the variables that size the thread).
 */
import type { Readable, Writable } from 'node:stream';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../client/read-capped-body.js';
import { CLIENT_LIMIT_VARIABLES, loadClientLimits } from '../config/load-client-limits.js';
import { loadMemoryCeiling, MEMORY_CEILING_VARIABLE } from '../config/load-memory-ceiling.js';
import { ConfigError } from '../errors.js';
import { launchThreadLimits, serveThreadLimits, type ThreadHeapLimits } from '../server/memory-budgets.js';

/** The commands that run in the bounded thread, by the limits they get. */
export type BoundedCommand = 'serve' | 'launch' | 'export';

/**
 * `hooksync export`'s V8 limits, MB. An export streams: its live heap is the code, one batch of rows (a
 * Parquet row group) and the envelopes of one job; left unbounded, V8 let a Parquet export of 1,000,000
 * persons grow past 200 MB RSS before collecting (bench/RESULTS.md).
 */
export const EXPORT_YOUNG_GENERATION_MB = 12;
export const EXPORT_OLD_GENERATION_MB = 128;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Which bounded thread `argv` (without node and script) runs in: `serve`, `export`, or a bulk launch
 * (`launch <operation>`, `watches run`: a watch's cycle, launched now); undefined for the rest, help
 * included, which run in the main thread.
 */
export function boundedCommand(argv: readonly string[]): BoundedCommand | undefined {
  if (argv.includes('--help') || argv.includes('-h')) return undefined;
  if (argv[0] === 'serve') return 'serve';
  if (argv[0] === 'export') return 'export';
  if ((argv[0] === 'launch' && argv.length > 1) || (argv[0] === 'watches' && argv[1] === 'run')) {
    return 'launch';
  }
  return undefined;
}

/**
 * The answer bytes a launch reads at once: as set (HOOKSYNC_ANSWER_BUDGET_BYTES), else one answer of the
 * largest size read (HOOKSYNC_MAX_ANSWER_BYTES, default 4 MiB) at a time, not the client's 16 MiB: the
 * launch's heap is sized to hold them parsed.
 */
export function launchAnswerBudgetBytes(limits: {
  readonly answerBudgetBytes?: number;
  readonly maxResponseBytes?: number;
}): number {
  return limits.answerBudgetBytes ?? limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
}

/**
 * The thread's V8 limits for `command` under the environment `env`: for `serve`, from the memory ceiling
 * (HOOKSYNC_MEMORY_MB or the container's limit) and the answer budget when set; for a launch, from its
 * answer budget. A bad setting leaves V8's defaults: the thread's CLI then reports it, in its own words.
 */
export function boundedResourceLimits(command: BoundedCommand, env: Env): ThreadHeapLimits {
  let limits: ReturnType<typeof loadClientLimits> = {};
  try {
    limits = loadClientLimits(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  if (command === 'export') {
    return Object.freeze({
      maxYoungGenerationSizeMb: EXPORT_YOUNG_GENERATION_MB,
      maxOldGenerationSizeMb: EXPORT_OLD_GENERATION_MB,
    });
  }
  if (command === 'launch') return launchThreadLimits(launchAnswerBudgetBytes(limits));
  try {
    return serveThreadLimits(loadMemoryCeiling(env).bytes, limits.answerBudgetBytes);
  } catch (error) {
    // A bad HOOKSYNC_MEMORY_MB (ConfigError) or a ceiling under the floor (RangeError): serve refuses it.
    if (!(error instanceof ConfigError) && !(error instanceof RangeError)) throw error;
    return serveThreadLimits(undefined);
  }
}

/** What the thread gets (bounded-worker.ts). */
export interface BoundedWorkerData {
  readonly argv: readonly string[];
  readonly env: Env;
  readonly interactive: boolean;
}

/** The process around the thread (main.ts's). */
export interface BoundedThreadHost {
  readonly env: Env;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly interactive: boolean;
  readonly shutdown: Promise<string>;
}

/**
 * Runs the CLI on `argv` in its bounded thread and resolves its exit code: the thread's streams are piped
 * into the host's (standard input only for `--from -`), an interrupt is passed on as a message.
 */
export function runInBoundedThread(
  argv: readonly string[],
  command: BoundedCommand,
  host: BoundedThreadHost,
): Promise<number> {
  const fromStdin = argv.some((arg, i) => arg === '--from=-' || (arg === '-' && argv[i - 1] === '--from'));
  return runThread({
    worker: new URL('./bounded-worker.js', import.meta.url),
    workerData: { argv, env: { ...host.env }, interactive: host.interactive } satisfies BoundedWorkerData,
    resourceLimits: boundedResourceLimits(command, host.env),
    stdin: fromStdin,
    command,
    host,
  });
}

/** A thread to run (the CLI's, or a test's stand-in for it). */
export interface ThreadRun {
  /** The module the thread runs: it posts `{ code }` once done, and takes `{ type: 'shutdown', signal }`. */
  readonly worker: URL;
  readonly workerData: unknown;
  readonly resourceLimits: ResourceLimits;
  /** Whether the host's standard input is piped into the thread's. */
  readonly stdin: boolean;
  /** What runs there (named when the thread runs out of memory). */
  readonly command: BoundedCommand;
  readonly host: BoundedThreadHost;
}

/**
 * Runs a thread and resolves the exit code it posted. A thread that stops without one (an uncaught error,
 * or out of its heap) exits 1 with one line on stderr, after what the thread wrote.
 */
export async function runThread(run: ThreadRun): Promise<number> {
  const { host } = run;
  const worker = new Worker(run.worker, {
    workerData: run.workerData,
    stdin: run.stdin,
    stdout: true,
    stderr: true,
    resourceLimits: run.resourceLimits,
  });
  if (run.stdin && worker.stdin !== null) host.stdin.pipe(worker.stdin);
  worker.stdout.pipe(host.stdout, { end: false });
  worker.stderr.pipe(host.stderr, { end: false });
  const ended = (stream: Readable) => new Promise<void>((resolve) => stream.once('end', resolve));
  const drained = Promise.all([ended(worker.stdout), ended(worker.stderr)]);
  let code: number | undefined;
  worker.on('message', (message: { code?: unknown }) => {
    if (typeof message?.code === 'number') code = message.code;
  });
  let failure: Error | undefined;
  // A thread that dies (out of its heap, an uncaught error) emits 'error' and then 'exit'.
  worker.on('error', (error) => {
    failure ??= error;
  });
  // Not events.once(worker, 'exit'): it rejects on the 'error' that comes before the exit of a failed thread.
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void host.shutdown.then((signal) => worker.postMessage({ type: 'shutdown', signal }));
  await exited;
  await drained;
  if (code !== undefined) return code;
  host.stderr.write(`hooksync: ${describeStop(run, failure)}\n`);
  return 1;
}

/** The line for a thread that stopped without an exit code. */
function describeStop(run: ThreadRun, failure: Error | undefined): string {
  if ((failure as { code?: unknown } | undefined)?.code !== 'ERR_WORKER_OUT_OF_MEMORY') {
    return `the ${run.command} thread stopped: ${failure?.message ?? 'no exit code'}`;
  }
  const heap = run.resourceLimits.maxOldGenerationSizeMb;
  const bound = heap === undefined ? "V8's default heap" : `its heap of ${heap} MB`;
  if (run.command === 'launch') {
    return (
      `the launch ran out of memory (${bound}, sized by ${CLIENT_LIMIT_VARIABLES.answerBudgetBytes}; ` +
      `${MEMORY_CEILING_VARIABLE} sizes only serve): raise ${CLIENT_LIMIT_VARIABLES.answerBudgetBytes}`
    );
  }
  const ceiling = run.host.env[MEMORY_CEILING_VARIABLE];
  const set = ceiling === undefined || ceiling.trim() === '' ? "the container's limit or none" : ceiling;
  return (
    `serve ran out of memory (${bound}, sized by ${MEMORY_CEILING_VARIABLE}: ${set}): ` +
    `raise ${MEMORY_CEILING_VARIABLE} (and the container's memory with it)`
  );
}
