#!/usr/bin/env node
/**
 * The hooksync executable: the only place that touches process-wide state (argv, exit code, signals).
 */
import { runCli } from './run-cli.js';

const shutdown = new Promise<string>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
});

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: Boolean(process.stderr.isTTY),
  setExitCode: () => {},
  shutdown,
});
process.exitCode = code;
// Let pending stdout writes drain, then leave even if a library left a handle open.
process.stdout.write('', () => process.exit(code));
