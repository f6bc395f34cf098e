/**
 * What every command gets: the process's streams and environment, passed in so that commands can be run
 * in-process by tests, and the one error type that a command throws to fail with a clear line.
 */
import type { Readable, Writable } from 'node:stream';
import { type CliCode, HooksyncError } from '../errors.js';

/** Exit codes of the CLI. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
/** Bad usage: an unknown command, a bad flag or argument. */
export const EXIT_USAGE = 2;
/** A run cancelled by SIGINT / SIGTERM (128 + SIGINT). */
export const EXIT_ABORTED = 130;

/** The process around a command. */
export interface CliContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** True when stderr is a terminal (progress bars are drawn only then). */
  readonly interactive: boolean;
  /** Sets the code the process exits with once the command has finished. */
  setExitCode(code: number): void;
  /** Resolves when the process is asked to stop (SIGINT / SIGTERM), for long-running commands. */
  readonly shutdown: Promise<string>;
  /**
   * The receiver's store worker script (serve, demo; default the built one beside the job store). Tests
   * that run the CLI from the TypeScript sources pass the build: worker threads run JavaScript only.
   */
  readonly storeWorkerUrl?: URL;
}

/** The code of a command's failure, named after its exit code. */
function cliCodeOf(exitCode: number): CliCode {
  if (exitCode === EXIT_USAGE) return 'CLI_USAGE';
  if (exitCode === EXIT_ABORTED) return 'CLI_ABORTED';
  return 'CLI_FAILED';
}

/** A command's failure: its message is printed as one line on stderr, the process exits with `exitCode`. */
export class CliError extends HooksyncError {
  declare readonly code: CliCode;
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT_FAILURE, options?: { cause?: unknown }) {
    super(cliCodeOf(exitCode), message, options);
    this.exitCode = exitCode;
  }
}

/** Writes a line to a stream. */
export function writeLine(stream: Writable, line: string): void {
  stream.write(`${line}\n`);
}
