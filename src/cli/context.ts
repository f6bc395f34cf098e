/**
 * What every command gets: the process's streams and environment, passed in so that commands can be run
 * in-process by tests, and the one error type that a command throws to fail with a clear line.
 */
import type { Readable, Writable } from 'node:stream';

/** Exit codes of the CLI. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
/** Bad usage: an unknown command, a bad flag or argument. */
export const EXIT_USAGE = 2;

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

/** A command's failure: its message is printed as one line on stderr, the process exits with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT_FAILURE, options?: { cause?: unknown }) {
    super(message, options);
    this.exitCode = exitCode;
  }
}

/** Writes a line to a stream. */
export function writeLine(stream: Writable, line: string): void {
  stream.write(`${line}\n`);
}
