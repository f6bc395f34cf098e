/**
 * `hooksync launch` in a worker thread (started by commands/launch.ts): the run, with the thread's
 * standard streams (piped by the parent into its own) and its exit code, interrupt and failure passed as
 * messages. The thread's young generation is capped by `resourceLimits`, which a process cannot do to
 * itself without changing V8's flags at run time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { LaunchOperation } from '../launch/launch-operations.js';
import { type LaunchFlags, runLaunchCommand } from './commands/launch.js';
import { type CliContext, CliError } from './context.js';

/** What the parent passes to the thread. */
export interface LaunchWorkerData {
  readonly operation: LaunchOperation;
  readonly flags: LaunchFlags;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly interactive: boolean;
}

/** The thread's messages to the parent. */
export type LaunchWorkerMessage =
  | { readonly type: 'exit-code'; readonly code: number }
  | { readonly type: 'done' }
  | { readonly type: 'failed'; readonly message: string; readonly exitCode: number | undefined };

if (parentPort === null) throw new Error('launch-worker.js runs as a worker thread');
const port = parentPort;
const data = workerData as LaunchWorkerData;
const post = (message: LaunchWorkerMessage): void => port.postMessage(message);

const ctx: CliContext = {
  env: data.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: data.interactive,
  setExitCode: (code) => post({ type: 'exit-code', code }),
  shutdown: new Promise<string>((resolve) => {
    port.on('message', (message: { type: string; signal: string }) => {
      if (message.type === 'shutdown') resolve(message.signal);
    });
  }),
};

try {
  await runLaunchCommand(data.operation, data.flags, ctx);
  post({ type: 'done' });
} catch (error) {
  post({
    type: 'failed',
    message:
      error instanceof CliError
        ? error.message
        : error instanceof Error
          ? String(error.stack)
          : String(error),
    exitCode: error instanceof CliError ? error.exitCode : undefined,
  });
} finally {
  port.close();
}
