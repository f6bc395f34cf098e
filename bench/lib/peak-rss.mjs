/** A child process and its peak resident set (VmHWM of /proc/PID/status, polled every 100 ms). */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Runs node with `args`; resolves its exit code, stdout and peak RSS in kB. Stderr is inherited. */
export function runWithPeakRss(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    let peakKb = 0;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const poll = setInterval(() => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peakKb = Math.max(peakKb, Number(match[1]));
      } catch {
        // Exited between two polls.
      }
    }, 100);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(poll);
      resolve({ code, stdout, peakKb });
    });
  });
}
