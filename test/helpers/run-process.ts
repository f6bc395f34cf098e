/**
 * Runs node on a script in a process of its own, as a user's shell would, and collects what it printed.
 */
import { spawn } from 'node:child_process';

/** How a process ended and what it wrote. */
export interface ProcessRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node <args>` with `env` (the whole environment: nothing is inherited unless passed) and `stdin`
 * written to its standard input (none when undefined); resolves once the process has closed its streams.
 */
export function runNode(
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; stdin?: string },
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: options.env,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  });
}
