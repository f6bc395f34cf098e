/**
 * The bounded thread (started by bounded-thread.ts for `serve`, `launch <operation>` and `watches run`): the
 * CLI on the command line, with the thread's own standard streams (piped by the main thread into the
 * process's), its exit code sent back as a message and the interrupt received as one.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { BoundedWorkerData } from './bounded-thread.js';
import { runCli } from './run-cli.js';

if (parentPort === null) throw new Error('bounded-worker.js runs as a worker thread');
const port = parentPort;
const data = workerData as BoundedWorkerData;

const code = await runCli(data.argv, {
  env: data.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: data.interactive,
  setExitCode: () => {},
  shutdown: new Promise<string>((resolve) => {
    port.on('message', (message: { type: string; signal: string }) => {
      if (message.type === 'shutdown') resolve(message.signal);
    });
  }),
});
port.postMessage({ code });
port.close();
