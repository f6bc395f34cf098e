/**
 * The built `hooksync launch` runs the launch in its bounded thread (cli/bounded-thread.ts): its output, exit
 * code, failures and standard input pass through the command as they would in one thread (a real
 * process; the in-process tests run the launch in the calling thread).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { ensureBuilt } from '../../helpers/ensure-built.js';
import { runNode } from '../../helpers/run-process.js';
import { until } from '../../helpers/until.js';

describe('hooksync launch in its worker thread (built CLI)', () => {
  let dir: string;
  let sim: Simulator;
  let cli: string;
  beforeAll(async () => {
    cli = ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'hooksync-launch-thread-'));
    sim = await createSimulator({ seed: 5 });
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function run(args: string[], stdin: string, database: string) {
    return runNode([cli, ...args], {
      env: {
        ...process.env,
        HOOKSYNC_API_BASE_URL: sim.url,
        HOOKSYNC_API_KEY: sim.apiKey,
        HOOKSYNC_DATABASE_URL: join(dir, database),
        HOOKSYNC_LOG_LEVEL: 'warn',
      },
      stdin,
    });
  }

  it('reads the rows from stdin, reports a bad line on stderr and the report on stdout', async () => {
    const result = await run(
      ['launch', 'reveal', '--from', '-', '--skip-invalid', '--json'],
      'ip\n10.0.0.1\nnot-an-ip\n10.0.0.2\n',
      'stdin.db',
    );
    const report = JSON.parse(result.stdout) as { rows: number; launched: number; invalid: number };
    expect(report).toMatchObject({ rows: 3, launched: 2, invalid: 1 });
    expect(result.stderr).toMatch(/^line 3: /m);
    expect(result.code).toBe(0);
    expect(sim.jobs()).toHaveLength(2);
  });

  it('passes an interrupt to the thread: what is in flight finishes, nothing new starts, exit 1', async () => {
    const ips = ['ip'];
    for (let i = 0; i < 3000; i += 1) ips.push(`10.1.${(i >> 8) & 255}.${i & 255}`);
    const file = join(dir, 'many.csv');
    await writeFile(file, ips.join('\n'));
    const before = sim.jobs().length;
    const child = spawn(process.execPath, [cli, 'launch', 'reveal', '--from', file, '--json'], {
      env: {
        ...process.env,
        HOOKSYNC_API_BASE_URL: sim.url,
        HOOKSYNC_API_KEY: sim.apiKey,
        HOOKSYNC_DATABASE_URL: join(dir, 'interrupt.db'),
        HOOKSYNC_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    await until(() => sim.jobs().length >= before + 20, {
      message: 'twenty rows are launched',
      timeout: 60_000,
    });
    child.kill('SIGINT');
    const code = await closed;
    const report = JSON.parse(stdout) as { launched: number; stopped: string };
    expect(code).toBe(1);
    expect(report.stopped).toBe('interrupted');
    expect(report.launched).toBeGreaterThanOrEqual(20);
    expect(report.launched).toBeLessThan(3000);
    expect(sim.jobs().length - before).toBe(report.launched);
    expect(stderr).toContain('hooksync: interrupted: no new rows are launched');
  }, 120_000);

  it("passes the thread's usage failure on as the command's: its one line, exit 2", async () => {
    const file = join(dir, 'no-ip.csv');
    await writeFile(file, 'address\n10.0.0.3\n');
    const result = await run(['launch', 'reveal', '--from', file, '--map', 'ip=IP'], '', 'usage.db');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    // The first and only line: the header is checked before any row.
    expect(result.stderr).toBe('hooksync: no-ip.csv has no column "IP" (named by --map or --carry)\n');
  });
});
