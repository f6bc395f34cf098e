#!/usr/bin/env node
/**
 * The hooksync executable: the only place that touches process-wide state (argv, exit code, signals).
 */

const shutdown = new Promise<string>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
});

const argv = process.argv.slice(2);
const host = {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: Boolean(process.stderr.isTTY),
  shutdown,
};
// serve, export and the bulk launches run in a thread whose heap V8 bounds, started before the CLI's code is loaded
// here; the rest (help included) runs in this thread.
const thread = await import('./bounded-thread.js');
const command = thread.boundedCommand(argv);
const code =
  command !== undefined
    ? await thread.runInBoundedThread(argv, command, host)
    : await (await import('./run-cli.js')).runCli(argv, { ...host, setExitCode: () => {} });
process.exitCode = code;
// Let pending stdout writes drain, then leave even if a library left a handle open.
process.stdout.write('', () => process.exit(code));
