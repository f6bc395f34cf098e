/**
 * The machine a benchmark ran on, for the results table: cores, CPU model, memory, OS, Node, and the
 * commit of the code under test.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';

/** Facts about this machine and checkout. */
export function describeMachine() {
  const model = cpus()[0]?.model?.trim() ?? 'unknown CPU';
  let commit = 'unknown';
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
    // The results file itself is rewritten section by section during a run: it is not code.
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)bench/RESULTS.md'],
      {
        encoding: 'utf8',
        stdio: 'pipe',
      },
    ).trim();
    commit = dirty === '' ? head : `${head} + uncommitted changes`;
  } catch {
    // Not a git checkout: the table says unknown.
  }
  return {
    cores: availableParallelism(),
    cpuModel: model,
    memoryGb: totalmem() / 1024 ** 3,
    os: `${type()} ${release()}`,
    node: process.version,
    commit,
    loadAverage: loadavg()[0],
  };
}

/** Set by bench/run.mjs, which prints the machine once per section itself. */
export const RUNNER_ENV = 'HOOKSYNC_BENCH_RUNNER';

/** The machine line for a benchmark's own output: empty under bench/run.mjs, which prints its own. */
export function ownMachineLines() {
  return process.env[RUNNER_ENV] === '1' ? [] : [machineLine(), ''];
}

/** One markdown line naming the machine. */
export function machineLine(machine = describeMachine()) {
  return (
    `Machine: ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGb.toFixed(1)} GB RAM, ` +
    `${machine.os}, Node ${machine.node}; code at ${machine.commit}; 1-minute load average ` +
    `${machine.loadAverage.toFixed(2)} when the table was printed (other work on the machine shows here).`
  );
}
