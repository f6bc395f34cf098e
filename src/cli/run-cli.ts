/**
 * Runs the CLI against a context and returns the exit code: the part of main that tests can call.
 */
import { CommanderError } from 'commander';
import { ConfigError, HooksyncError } from '../errors.js';
import { type CliContext, CliError, EXIT_FAILURE, EXIT_USAGE, writeLine } from './context.js';
import { createProgram } from './create-program.js';

/** Parses `argv` (without node and script), runs the command, and returns its exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  let exitCode = 0;
  const scoped: CliContext = {
    ...ctx,
    setExitCode(code) {
      exitCode = code;
    },
  };
  try {
    await createProgram(scoped).parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has already printed its message (or the help / version).
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    writeLine(ctx.stderr, `hooksync: ${describeError(error)}`);
    if (error instanceof CliError) return error.exitCode;
    // A bad setting is bad usage, whether a flag, a variable or the destinations file gave it.
    return error instanceof ConfigError ? EXIT_USAGE : EXIT_FAILURE;
  }
}

/** One line that says what went wrong, never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof CliError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') {
    const { address, port } = error as { address?: string; port?: number };
    const where = address === undefined ? 'the address' : `${address}:${port ?? ''}`;
    return `${where} is already in use: stop what listens there, or pick another port (--port 0 takes any free one)`;
  }
  if (error instanceof HooksyncError) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}
