/**
 * `hooksync launch` runs in a worker thread whose heap V8 bounds (`resourceLimits`), started by main.ts
 * before the CLI's code is loaded: in one process V8 lets the heap of a long launch grow to several times
 * what is alive before collecting it, and a process cannot bound its own heap without changing V8's flags.
 * The thread runs the whole CLI on the command line; this module stays small (the main thread loads it
 * alone).
 */
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { PARSED_ANSWER_GROWTH } from '../client/answer-budget.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../client/read-capped-body.js';
import { type ClientLimitSettings, loadClientLimits } from '../config/load-client-limits.js';
import { ConfigError } from '../errors.js';

/**
 * The launch thread's young generation, in MB (V8 lets it grow to 48). A launch allocates fast and keeps
 * little; a large young generation is room taken for garbage, and a small one is collected often.
 */
export const LAUNCH_YOUNG_GENERATION_MB = 3;
/**
 * The launch thread's old generation beside the answers in flight, in MB: the code and the run's own
 * state (about 22 MB live after a full collection over a long reveal file), with room to spare.
 */
export const LAUNCH_HEAP_BASE_MB = 48;

/**
 * The answer bytes a launch reads at once: as set (HOOKSYNC_ANSWER_BUDGET_BYTES), else one answer of the
 * largest size read (HOOKSYNC_MAX_ANSWER_BYTES, default 4 MiB) at a time, not the client's 16 MiB: the
 * launch thread's heap is sized to hold them parsed.
 */
export function launchAnswerBudgetBytes(limits: ClientLimitSettings): number {
  return limits.answerBudgetBytes ?? limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
}

/**
 * The launch thread's V8 limits: a small young generation, and an old generation that holds the answer
 * budget parsed on top of {@link LAUNCH_HEAP_BASE_MB}. A bounded old generation is what makes V8 collect
 * before the heap has grown to several times what is alive.
 */
export function launchResourceLimits(limits: ClientLimitSettings): ResourceLimits {
  const answersMb = Math.ceil((PARSED_ANSWER_GROWTH * launchAnswerBudgetBytes(limits)) / 2 ** 20);
  return {
    maxYoungGenerationSizeMb: LAUNCH_YOUNG_GENERATION_MB,
    maxOldGenerationSizeMb: LAUNCH_HEAP_BASE_MB + answersMb,
  };
}

/**
 * True when `argv` (without node and script) launches jobs in bulk, which main.ts then runs in the launch
 * thread: `hooksync launch <operation>` and `hooksync watches run` (a watch's cycle, launched now).
 */
export function isLaunch(argv: readonly string[]): boolean {
  if (argv.includes('--help') || argv.includes('-h')) return false;
  return (argv[0] === 'launch' && argv.length > 1) || (argv[0] === 'watches' && argv[1] === 'run');
}

/** What the thread gets (launch-worker.ts). */
export interface LaunchWorkerData {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly interactive: boolean;
}

/** The process around the thread (main.ts's). */
export interface LaunchThreadHost {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly interactive: boolean;
  readonly shutdown: Promise<string>;
}

/**
 * Runs the CLI on `argv` in the launch thread and resolves its exit code: the thread's streams are piped
 * into the host's (standard input only for `--from -`), an interrupt is passed on as a message.
 */
export async function runInLaunchThread(argv: readonly string[], host: LaunchThreadHost): Promise<number> {
  let limits: ClientLimitSettings;
  try {
    limits = loadClientLimits(host.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    limits = {}; // the thread's CLI reports the bad setting, in its own words.
  }
  const fromStdin = argv.some((arg, i) => arg === '--from=-' || (arg === '-' && argv[i - 1] === '--from'));
  const data: LaunchWorkerData = { argv, env: { ...host.env }, interactive: host.interactive };
  const worker = new Worker(new URL('./launch-worker.js', import.meta.url), {
    workerData: data,
    stdin: fromStdin,
    stdout: true,
    stderr: true,
    resourceLimits: launchResourceLimits(limits),
  });
  if (fromStdin && worker.stdin !== null) host.stdin.pipe(worker.stdin);
  worker.stdout.pipe(host.stdout, { end: false });
  worker.stderr.pipe(host.stderr, { end: false });
  const drained = Promise.all([once(worker.stdout, 'end'), once(worker.stderr, 'end')]);
  let code: number | undefined;
  worker.on('message', (message: { code: number }) => {
    code = message.code;
  });
  let failure: Error | undefined;
  // A thread that dies (out of its memory, say) ends with an error event and then exits.
  worker.on('error', (error) => {
    failure ??= error;
  });
  void host.shutdown.then((signal) => worker.postMessage({ type: 'shutdown', signal }));
  await once(worker, 'exit');
  await drained;
  if (code !== undefined) return code;
  host.stderr.write(`hooksync: the launch thread stopped: ${failure?.message ?? 'no exit code'}\n`);
  return 1;
}
