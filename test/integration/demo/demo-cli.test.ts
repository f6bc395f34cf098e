/**
 * `hooksync demo` end to end, in-process through the CLI: simulator, receiver, faults, key rotation,
 * reconcile and exports, with the summary on stdout and the phases on stderr.
 */

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run-cli.js';
import { listTemplates } from '../../../src/export/load-template.js';
import { countJobs } from '../../../src/storage/job-queries.js';
import { withMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { type CliRun, runCliCaptured } from '../../helpers/cli-harness.js';
import { BUILT_STORE_WORKER } from '../../helpers/ensure-built.js';

describe('hooksync demo', () => {
  let dir: string;
  let out: string;
  let run: CliRun;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-demo-test-'));
    out = join(dir, 'exports');
    // A user's settings must not leak into the demo: it makes its own database and service.
    run = await runCliCaptured(['demo', '--out', out], {
      env: { HOOKSYNC_DATABASE_URL: join(dir, 'users-own.db'), HOOKSYNC_API_BASE_URL: 'http://127.0.0.1:9' },
    });
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 with every phase on stderr and no log line', () => {
    expect(run.stderr.split('\n').filter((line) => line !== '')).toEqual([
      expect.stringMatching(/^\[1\/7\] starting the simulator/),
      expect.stringMatching(/^\[2\/7\] launching 12 company reveals and 6 contact searches/),
      expect.stringMatching(/^\[3\/7\] receiving their callbacks/),
      expect.stringMatching(/^\[4\/7\] rotating the signing key/),
      expect.stringMatching(/^\[5\/7\] reconciling/),
      expect.stringMatching(/^\[6\/7\] exporting/),
      expect.stringMatching(/^\[7\/7\] checking/),
    ]);
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, 'users-own.db'))).toBe(false);
  });

  it('summarises: every job stored once, each fault handled, refusals with reasons, recoveries', () => {
    const { stdout } = run;
    expect(stdout).toMatch(
      /^hooksync demo: 26 jobs launched against the simulator \(seed hooksync-demo-\d+\)/,
    );
    expect(stdout).toContain('26 jobs stored, each exactly once and byte for byte as the service holds it');
    const received = Number(/^Callbacks received: (\d+)$/m.exec(stdout)?.[1]);
    const outcomes = [
      ...stdout.matchAll(/^(stored|duplicate|refused|updated|replay|retry_later)\s+(\d+)\s/gm),
    ];
    expect(received).toBeGreaterThan(0);
    expect(outcomes.reduce((sum, m) => sum + Number(m[2]), 0)).toBe(received);
    expect(Number(/duplicates ignored: (\d+)$/m.exec(stdout)?.[1])).toBeGreaterThan(0);
    for (const fault of ['dropped', 'duplicated', 'tampered with', 'sent unsigned', 'key rotated midway']) {
      const count = Number(new RegExp(`^${fault}\\s+(\\d+)\\s`, 'm').exec(stdout)?.[1]);
      expect(count, fault).toBeGreaterThan(0);
    }
    expect(stdout).toMatch(/^BODY_HASH_MISMATCH\s+\d+$/m);
    expect(stdout).toMatch(/^SIGNATURE_MISSING\s+\d+$/m);
    expect(Number(/^Recovered by reconcile: (\d+) \(completed;/m.exec(stdout)?.[1])).toBeGreaterThan(0);
    expect(stdout).toContain('Database removed');
  });

  it('writes one CSV file per built-in template, each parsing with its header and the rows it reports', async () => {
    const templates = (await listTemplates()).map((t) => `${t.name}.csv`).sort();
    expect(readdirSync(out).sort()).toEqual(templates);
    for (const file of templates) {
      const rows = parse(readFileSync(join(out, file)), {
        bom: true,
        relax_column_count: false,
      }) as string[][];
      const reported = Number(
        new RegExp(`^${file.replace('.', '\\.')}\\s+(\\d+)$`, 'm').exec(run.stdout)?.[1],
      );
      expect(rows.length - 1, file).toBe(reported);
    }
    for (const file of ['persons.csv', 'companies.csv', 'hubspot-contacts.csv', 'salesforce-leads.csv']) {
      const rows = parse(readFileSync(join(out, file)), { bom: true }) as string[][];
      expect(rows.length, file).toBeGreaterThan(1);
    }
  });
});

describe('hooksync demo on a terminal, keeping its database', () => {
  it('draws a spinner per phase, ticks each off, and leaves the database to explore', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hooksync-demo-test-'));
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    stdout.on('data', (c: Buffer) => out.push(c));
    stderr.on('data', (c: Buffer) => err.push(c));
    let databasePath: string | undefined;
    try {
      const code = await runCli(['demo', '--out', join(dir, 'exports'), '--keep-db'], {
        env: {},
        stdin: Readable.from(['']),
        stdout,
        stderr,
        interactive: true,
        setExitCode: () => {},
        shutdown: new Promise<string>(() => {}),
        storeWorkerUrl: BUILT_STORE_WORKER,
      });
      const text = Buffer.concat(err).toString('utf8');
      const summary = Buffer.concat(out).toString('utf8');
      expect(code).toBe(0);
      for (let step = 1; step <= 7; step += 1) expect(text).toContain(`\r✓ [${step}/7] `);
      databasePath = /^Database kept: (.+)$/m.exec(summary)?.[1];
      expect(databasePath).toBeDefined();
      expect(await withMigratedDatabase(databasePath!, (database) => countJobs(database.db))).toBe(26);
    } finally {
      if (databasePath !== undefined) rmSync(join(databasePath, '..'), { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('hooksync demo interrupted', () => {
  it('stops between phases with exit 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hooksync-demo-test-'));
    try {
      const run = await runCliCaptured(['demo', '--out', join(dir, 'exports')], {
        shutdown: Promise.resolve('SIGINT'),
      });
      expect(run.code).toBe(130);
      expect(run.stderr).toContain('hooksync: demo interrupted by SIGINT');
      expect(run.stdout).toBe('');
      expect(existsSync(join(dir, 'exports'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
