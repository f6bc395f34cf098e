/**
 * `hooksync sim --detach`, for scripts: starts the simulator as a background process, waits until it
 * listens, prints its variables as `export NAME='value'` lines (plus its pid and log file) and returns,
 * so that `eval "$(hooksync sim --detach)"` sets them and goes on, as ssh-agent does.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { type CliContext, CliError, writeLine } from './context.js';

/** Lines the foreground simulator prints once it listens (see commands/sim.ts). */
const READY_LINES = 3;

/** A value as one single-quoted shell word. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The options `command` was given (from its parsed values), as argv again, without those in `leave`. */
export function foregroundArgs(command: Command, leave: readonly string[]): string[] {
  const values = command.opts();
  const args: string[] = [];
  for (const option of command.options) {
    const value = values[option.attributeName()];
    if (option.long === undefined || leave.includes(option.long) || value === undefined) continue;
    if (value === true) args.push(option.long);
    else if (Array.isArray(value)) for (const item of value) args.push(option.long, String(item));
    else if (value !== false) args.push(option.long, String(value));
  }
  return args;
}

/** The last line the child wrote to its log that reads as the CLI's own error line. */
function lastErrorLine(logPath: string): string | undefined {
  let text = '';
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return undefined;
  }
  const line = text
    .split('\n')
    .filter((l) => l.startsWith('hooksync: '))
    .at(-1);
  return line?.slice('hooksync: '.length);
}

/** Runs `hooksync <args>` (a foreground `sim`) in the background; resolves once it has printed its URL. */
export async function detachSimulator(args: readonly string[], ctx: CliContext): Promise<void> {
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  const logPath = join(tmpdir(), `hooksync-sim-${process.pid}-${Date.now()}.log`);
  const log = openSync(logPath, 'a', 0o600);
  const child = spawn(process.execPath, [main, ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', log],
    env: { ...ctx.env },
  });
  closeSync(log);
  const lines = await new Promise<string[]>((resolve, reject) => {
    let text = '';
    const onExit = (code: number | null) => {
      const why = lastErrorLine(logPath) ?? `it exited with code ${code} (its log: ${logPath})`;
      reject(new CliError(why));
    };
    child.once('exit', onExit);
    child.once('error', (error) => reject(new CliError(`cannot start the simulator: ${error.message}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const complete = text.split('\n').slice(0, -1);
      if (complete.length >= READY_LINES) {
        child.off('exit', onExit);
        resolve(complete.slice(0, READY_LINES));
      }
    });
  });
  child.stdout?.destroy();
  child.unref();
  for (const line of lines) {
    const at = line.indexOf('=');
    writeLine(ctx.stdout, `export ${line.slice(0, at)}=${shellQuote(line.slice(at + 1))}`);
  }
  writeLine(ctx.stdout, `export HOOKSYNC_SIM_PID=${child.pid}`);
  writeLine(ctx.stdout, `export HOOKSYNC_SIM_LOG=${shellQuote(logPath)}`);
}
