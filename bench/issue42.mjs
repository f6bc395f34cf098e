#!/usr/bin/env node
/**
 * Every figure issue 42 asks for, in one run against the naive handler and a reference build (the start of
 * the round, bbe843f): reveals and pages (req/s and server CPU per request; the verification ceiling, this
 * build with OpenTelemetry off and on), serve's idle RSS 20 s after one delivery, and issue 29's page flood
 * under a 256 MiB ceiling beside the same build unconstrained. Runs the benchmarks below one after the
 * other, each as a child process, and prints their markdown with the command and the load average; about
 * 8 to 10 minutes on a quiet 2-core machine.
 *
 *   npm run build && node bench/issue42.mjs --base-dist DIR   (or HOOKSYNC_BENCH_REFERENCE_DIST=DIR)
 *   options: --rounds 3 (receiver rounds)  --only receiver,idle,flood
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    'base-dist': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string', default: 'receiver,idle,flood' },
  },
});
const baseDist = flags['base-dist'] ?? (process.env.HOOKSYNC_BENCH_REFERENCE_DIST || undefined);
if (baseDist === undefined) {
  console.error(
    'issue42.mjs: pass --base-dist DIR (the dist/ of bbe843f) or set HOOKSYNC_BENCH_REFERENCE_DIST',
  );
  process.exit(2);
}

/** The runs, in order: name → script and arguments. */
const RUNS = {
  receiver: [
    'receiver.mjs',
    ['--rounds', flags.rounds, '--duration', '5', '--warmup', '1', '--no-pg', '--payloads', 'reveal,page'],
    ['--variants', 'verify,naive,hooksync-base,hooksync,hooksync-otel', '--base-dist', baseDist],
  ],
  idle: [
    'serve-idle.mjs',
    ['--runs', '3', '--settle-ms', '5000', '--late-ms', '20000', '--base-dist', baseDist],
  ],
  flood: [
    'receiver.mjs',
    ['--rounds', '1', '--duration', '20', '--no-pg', '--payloads', 'page', '--memory-mb', '256'],
    ['--variants', 'hooksync,hooksync-ceiling'],
  ],
};

let failed = false;
for (const name of flags.only.split(',').filter(Boolean)) {
  const run = RUNS[name];
  if (run === undefined) {
    console.error(`issue42.mjs: unknown run ${name} (known: ${Object.keys(RUNS).join(', ')})`);
    process.exit(2);
  }
  const [script, ...argLists] = run;
  const args = argLists.flat();
  const started = performance.now();
  const load = loadavg()[0].toFixed(1);
  console.error(`[issue42] ${name} …`);
  const { code, stdout } = await runChild(fileURLToPath(new URL(`./${script}`, import.meta.url)), args);
  if (code !== 0) failed = true;
  console.log(
    [
      `### ${name}`,
      '',
      `\`node bench/${script} ${args.join(' ')}\`: exit code ${code}, ` +
        `${((performance.now() - started) / 1000).toFixed(0)} s, 1-minute load average ${load} at the start ` +
        `and ${loadavg()[0].toFixed(1)} at the end.`,
      '',
      stdout.trim(),
      '',
    ].join('\n'),
  );
}
process.exit(failed ? 1 : 0);

/** Runs `script` with `args` in its own Node process: its stdout gathered, its stderr passed through. */
function runChild(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout }));
  });
}
