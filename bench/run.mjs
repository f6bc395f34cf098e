#!/usr/bin/env node
/**
 * Runs every benchmark, each as a child process (receiver, startup, and export, reconcile and launch when their
 * scripts are present), passes --quick through, prints their markdown and writes it into
 * bench/RESULTS.md, one section per benchmark.
 *
 *   npm run build && npm run bench               # the full run (about 15 to 20 minutes)
 *   npm run bench -- --quick                     # a short pass (about 3 minutes)
 *   npm run bench -- --quick --only receiver,startup
 *   npm run bench -- --no-write                  # print only, leave RESULTS.md alone
 *   npm run bench -- --reference ../ref/dist     # also serve an earlier build in every receiver round
 *                                                # (or HOOKSYNC_BENCH_REFERENCE_DIST=DIR): new / reference
 *
 * Exits 1 when a benchmark fails (or reports a failed check or missed target through its exit code); the
 * section then says so.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeMachine, machineLine, RUNNER_ENV } from './lib/machine.mjs';
import { writeResultsSection } from './lib/results-file.mjs';

const BENCHMARKS = ['receiver', 'startup', 'export', 'reconcile', 'launch'];
const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    reference: { type: 'string' },
  },
});
// The reference build (the dist/ of an earlier commit) the receiver benchmark serves beside this one.
if (flags.reference !== undefined) process.env.HOOKSYNC_BENCH_REFERENCE_DIST = flags.reference;
const selected = flags.only ? flags.only.split(',').filter(Boolean) : BENCHMARKS;
const unknown = selected.filter((name) => !BENCHMARKS.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')} (known: ${BENCHMARKS.join(', ')})`);
  process.exit(2);
}
if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) {
  console.error('dist/ is missing: run `npm run build` first (benchmarks measure the built package).');
  process.exit(2);
}

const argv = process.argv.slice(2).join(' ');
const command =
  process.env.npm_lifecycle_event === 'bench'
    ? `npm run bench${argv ? ` -- ${argv}` : ''}`
    : `node bench/run.mjs${argv ? ` ${argv}` : ''}`;
const runStarted = performance.now();
let failed = false;

for (const name of selected) {
  const script = fileURLToPath(new URL(`./${name}.mjs`, import.meta.url));
  if (!existsSync(script)) {
    console.error(`[run] bench/${name}.mjs is not there; skipped`);
    continue;
  }
  console.error(`[run] ${name}${flags.quick ? ' --quick' : ''} …`);
  const started = performance.now();
  const { code, stdout } = await runChild(script, flags.quick ? ['--quick'] : []);
  const seconds = (performance.now() - started) / 1000;
  const machine = describeMachine();
  if (code !== 0) failed = true;
  const section = [
    `## ${name}`,
    '',
    `Produced by \`${command}\` (which ran \`node bench/${name}.mjs${flags.quick ? ' --quick' : ''}\`) on ` +
      `${new Date().toISOString()}, in ${seconds.toFixed(0)} s; exit code ${code}` +
      `${code === 0 ? '' : ' — see the table for the failed check or missed target'}.`,
    '',
    machineLine(machine),
    '',
    stdout.trim() === '' ? '_No output._' : stdout.trim(),
  ].join('\n');
  console.log(`${section}\n`);
  if (!flags['no-write']) writeResultsSection(RESULTS_FILE, name, section);
}
console.error(
  `[run] done in ${((performance.now() - runStarted) / 1000).toFixed(0)} s` +
    `${flags['no-write'] ? '' : `; wrote ${RESULTS_FILE}`}`,
);
process.exitCode = failed ? 1 : 0;

/** Runs one benchmark script: its stdout is collected (the markdown), its stderr shown as it comes. */
function runChild(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, [RUNNER_ENV]: '1' },
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code: code ?? `signal ${signal}`, stdout }));
  });
}
