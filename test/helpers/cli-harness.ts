/**
 * Runs the CLI in-process with captured streams, as a user would see it.
 */
import { PassThrough, Readable } from 'node:stream';
import type { CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/run-cli.js';
import { BUILT_STORE_WORKER } from './ensure-built.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `hooksync <argv>` with the given environment and stdin text. */
export async function runCliCaptured(
  argv: readonly string[],
  options: {
    env?: Record<string, string | undefined>;
    stdin?: string;
    shutdown?: Promise<string>;
    /** Run as on a terminal (progress drawn on stderr); default false. */
    interactive?: boolean;
  } = {},
): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const ctx: CliContext = {
    env: options.env ?? {},
    stdin: Readable.from([options.stdin ?? '']),
    stdout,
    stderr,
    interactive: options.interactive ?? false,
    setExitCode: () => {},
    shutdown: options.shutdown ?? new Promise<string>(() => {}),
    storeWorkerUrl: BUILT_STORE_WORKER,
  };
  const code = await runCli(argv, ctx);
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
