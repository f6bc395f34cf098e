import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { envelopeText } from '../../helpers/envelope-texts.js';

describe('migrate, jobs and quarantine commands', () => {
  let dir: string;
  let env: Record<string, string>;
  const reveal = envelopeText('company-reveal');
  const search = envelopeText('search-contact');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-cli-'));
    env = { HOOKSYNC_DATABASE_URL: join(dir, 'cli.db') };
    const database = await openMigratedDatabase(env.HOOKSYNC_DATABASE_URL!);
    const store = createJobStore({ database });
    await store.store({ envelopeText: reveal.text, source: 'webhook' });
    await store.store({ envelopeText: search.text, source: 'finder' });
    await store.quarantine({ reason: 'SIGNATURE_INVALID', detail: 'bad', body: Buffer.from('{"x":1}') });
    await store.close();
    await database.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates a fresh database and says so', async () => {
    const run = await runCliCaptured(['migrate'], { env: { HOOKSYNC_DATABASE_URL: join(dir, 'fresh.db') } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/applied 001/);
    expect(run.stdout).toMatch(/is up to date/);
  });

  it('lists jobs as JSON with the promised fields, filtered and limited', async () => {
    const all = await runCliCaptured(['jobs', 'list', '--json'], { env });
    expect(all.code).toBe(0);
    const rows = JSON.parse(all.stdout) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(2);
    for (const row of rows)
      expect(Object.keys(row)).toEqual(
        expect.arrayContaining(['job_id', 'kind', 'status', 'source', 'received_at']),
      );
    const reveals = JSON.parse(
      (await runCliCaptured(['jobs', 'list', '--json', '--kind', 'company_reveal'], { env })).stdout,
    );
    expect(reveals).toEqual([expect.objectContaining({ job_id: reveal.jobId, source: 'webhook' })]);
    expect(
      JSON.parse((await runCliCaptured(['jobs', 'list', '--json', '--limit', '1'], { env })).stdout),
    ).toHaveLength(1);
    const table = await runCliCaptured(['jobs', 'list'], { env });
    expect(table.stdout).toMatch(/^job_id\s+kind\s+status\s+source\s+received_at$/m);
  });

  it('prints a stored envelope byte for byte, with or without --json', async () => {
    expect((await runCliCaptured(['jobs', 'get', search.jobId], { env })).stdout).toBe(search.text);
    expect((await runCliCaptured(['jobs', 'get', search.jobId, '--json'], { env })).stdout).toBe(search.text);
  });

  it('fails clearly for an absent job, a malformed id and a bad filter', async () => {
    const absent = await runCliCaptured(['jobs', 'get', '00000000-0000-4000-8000-000000000000'], { env });
    expect(absent).toMatchObject({ code: 1, stdout: '' });
    expect(absent.stderr).toMatch(/no stored job 00000000-0000-4000-8000-000000000000/);
    const malformed = await runCliCaptured(['jobs', 'get', 'not-a-uuid'], { env });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/job_id must be a UUID/);
    expect((await runCliCaptured(['jobs', 'list', '--kind', 'nope'], { env })).code).toBe(2);
    expect((await runCliCaptured(['jobs', 'list', '--limit', '0'], { env })).stderr).toMatch(
      /--limit must be a positive integer/,
    );
  });

  it('lists the quarantine without bodies', async () => {
    const run = await runCliCaptured(['quarantine', 'list', '--json'], { env });
    const rows = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    expect(rows).toEqual([expect.objectContaining({ reason: 'SIGNATURE_INVALID', bytes: 7 })]);
    expect(run.stdout).not.toContain('"x"');
  });
});
