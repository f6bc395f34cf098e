/**
 * Runs a stand-in thread through the built CLI's thread runner (dist/cli/bounded-thread.js) as main.ts runs
 * the CLI's: `node run-thread.mjs <dist> <worker.mjs> <old generation MB>`; exits with the code it resolves.
 */
import { pathToFileURL } from 'node:url';

const [dist, worker, oldMb] = process.argv.slice(2);
const { runThread } = await import(pathToFileURL(`${dist}/cli/bounded-thread.js`).href);
const shutdown = new Promise((resolve) => process.once('SIGTERM', () => resolve('SIGTERM')));
const code = await runThread({
  worker: pathToFileURL(worker),
  workerData: {},
  resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: Number(oldMb) },
  stdin: false,
  command: 'serve',
  host: {
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    interactive: false,
    shutdown,
  },
});
process.stdout.write('', () => process.exit(code));
