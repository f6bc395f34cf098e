/** `hooksync destinations …` run in-process as a user would, against a SQLite file and a real consumer. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import {
  createWebhookSecret,
  type StandardWebhookConsumer,
  startStandardWebhookConsumer,
} from '../../helpers/standard-webhook-consumer.js';

let dir: string;
let consumer: StandardWebhookConsumer;
let env: Record<string, string>;
const secret = createWebhookSecret();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-dest-cli-'));
  consumer = await startStandardWebhookConsumer(secret);
  const file = join(dir, 'destinations.json');
  writeFileSync(
    file,
    JSON.stringify({
      destinations: [
        { name: 'warehouse', type: 'webhook', url: consumer.url, secret: { env: 'HOOK_SECRET' } },
        {
          name: 'drop',
          type: 'file',
          template: 'companies',
          directory: join(dir, 'drop'),
          cron: '30 3 * * *',
        },
      ],
    }),
  );
  env = { HOOKSYNC_DATABASE_URL: join(dir, 'cli.db'), HOOKSYNC_DESTINATIONS: file, HOOK_SECRET: secret };
});
afterAll(async () => {
  vi.useRealTimers();
  await consumer.close();
  rmSync(dir, { recursive: true, force: true });
});

async function storeJobs(count: number): Promise<string[]> {
  const database = await openMigratedDatabase(env.HOOKSYNC_DATABASE_URL!);
  const store = createJobStore({ database });
  try {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const { text, jobId } = envelopeText('company-reveal');
      await store.store({ envelopeText: text, source: 'finder' });
      ids.push(jobId);
    }
    return ids;
  } finally {
    await store.close();
    await database.close();
  }
}

describe('hooksync destinations', () => {
  it('lists, delivers once, drops a file, replays, resumes and pings', async () => {
    // Listing records the file's routing: jobs stored from now on get events (finder copies too).
    const empty = await runCliCaptured(['destinations', 'list', '--json'], { env });
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([
      expect.objectContaining({ name: 'drop', type: 'file', pending: 0 }),
      expect.objectContaining({
        name: 'warehouse',
        type: 'webhook',
        paused: false,
        pending: 0,
        delivered: 0,
        failed: 0,
      }),
    ]);
    const jobIds = await storeJobs(2);
    const pending = JSON.parse((await runCliCaptured(['destinations', 'list', '--json'], { env })).stdout);
    expect(pending.find((d: { name: string }) => d.name === 'warehouse')).toMatchObject({ pending: 2 });

    // The file drop exports rows stored more than a few seconds ago (export --since-last settles); the
    // companies template keeps one row per company, and both jobs revealed the same one.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 60_000);
    const first = await runCliCaptured(['destinations', 'deliver'], { env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('warehouse: 2 delivered, 0 to retry later, 0 failed');
    expect(first.stdout).toMatch(/drop: 1 rows written to .*drop-.*\.csv/);
    expect(new Set(consumer.accepted().map((e) => e.event.data.job_id))).toEqual(new Set(jobIds));
    expect(consumer.accepted().every((e) => e.event.data.source === 'finder')).toBe(true);
    const files = readdirSync(join(dir, 'drop'));
    expect(files).toHaveLength(1);
    expect(readFileSync(join(dir, 'drop', files[0]!), 'utf8').split('\n').length).toBeGreaterThan(2);

    const second = await runCliCaptured(['destinations', 'deliver'], { env });
    expect(second.stdout).toContain('drop: nothing new');
    expect(readdirSync(join(dir, 'drop'))).toHaveLength(1);
    expect(consumer.verified).toHaveLength(2);

    const table = await runCliCaptured(['destinations', 'list'], { env });
    expect(table.stdout).toMatch(/warehouse\s+webhook\s+no\s+0\s+2\s+0/);

    const replay = await runCliCaptured(['destinations', 'replay', 'warehouse', '--job', jobIds[0]!], {
      env,
    });
    expect(replay.stdout).toContain('1 event(s) of warehouse queued again');
    await runCliCaptured(['destinations', 'deliver'], { env });
    expect(consumer.verified).toHaveLength(3);

    const ping = await runCliCaptured(['destinations', 'test', 'warehouse'], { env });
    expect(ping.stdout).toContain('warehouse: ping delivered (HTTP 204)');
    expect(consumer.verified.at(-1)!.event.type).toBe('ping');

    expect((await runCliCaptured(['destinations', 'resume', 'warehouse'], { env })).stdout).toContain(
      'resumed',
    );
    vi.useRealTimers();
  });

  it('says what is wrong in one line', async () => {
    const noWhat = await runCliCaptured(['destinations', 'replay', 'warehouse'], { env });
    expect(noWhat.code).toBe(2);
    expect(noWhat.stderr).toContain('say what to replay');
    const unknown = await runCliCaptured(['destinations', 'resume', 'nobody'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    const badJob = await runCliCaptured(['destinations', 'replay', 'warehouse', '--job', 'x'], { env });
    expect(badJob.code).toBe(2);
  });

  it('stops serve at start on a bad destinations file: one line, non-zero, no stack, no secret', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        destinations: [
          {
            name: 'warehouse',
            type: 'webhook',
            url: 'https://x.example',
            secret,
            retry: { schedule: ['5s', 'soon'] },
          },
        ],
      }),
    );
    const run = await runCliCaptured(['serve', '--destinations', file], {
      env: { HOOKSYNC_DATABASE_URL: join(dir, 'bad.db'), HOOKSYNC_JWKS_URL: 'http://127.0.0.1:9/jwks' },
    });
    expect(run.code).not.toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('destination "warehouse", field retry.schedule[1]: "soon" is not a duration');
    expect(run.stderr).not.toContain(secret.slice(6));
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('backfills a destination added later, once; replay points to backfill', async () => {
    const lateFile = join(dir, 'late.json');
    const lateEnv = { ...env, HOOKSYNC_DATABASE_URL: join(dir, 'late.db'), HOOKSYNC_DESTINATIONS: lateFile };
    writeFileSync(lateFile, JSON.stringify({ destinations: [] }));
    expect((await runCliCaptured(['destinations', 'list'], { env: lateEnv })).code).toBe(0);
    const database = await openMigratedDatabase(lateEnv.HOOKSYNC_DATABASE_URL);
    const store = createJobStore({ database });
    const jobIds: string[] = [];
    try {
      for (let i = 0; i < 3; i += 1) {
        const { text, jobId } = envelopeText('company-reveal');
        await store.store({ envelopeText: text, source: 'webhook' });
        jobIds.push(jobId);
      }
    } finally {
      await store.close();
      await database.close();
    }
    writeFileSync(
      lateFile,
      JSON.stringify({
        destinations: [{ name: 'late', type: 'webhook', url: consumer.url, secret: { env: 'HOOK_SECRET' } }],
      }),
    );
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const replay = await runCliCaptured(['destinations', 'replay', 'late', '--since', since], {
      env: lateEnv,
    });
    expect(replay.stdout).toContain('0 event(s) of late queued again: late has no events since');
    expect(replay.stdout).toContain(`hooksync destinations backfill late --since ${since}`);

    const dry = await runCliCaptured(['destinations', 'backfill', 'late', '--since', '1h', '--dry-run'], {
      env: lateEnv,
    });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('late: would queue 3 of 3 stored job(s)');
    const run = await runCliCaptured(['destinations', 'backfill', 'late', '--since', since], {
      env: lateEnv,
    });
    expect(run.stdout).toContain('late: queued 3 of 3 stored job(s) (0 already queued or delivered)');
    const again = await runCliCaptured(['destinations', 'backfill', 'late', '--since', '1h', '--json'], {
      env: lateEnv,
    });
    expect(JSON.parse(again.stdout)).toMatchObject({ jobs: { considered: 3, queued: 0 } });
    const before = consumer.verified.length;
    await runCliCaptured(['destinations', 'deliver'], { env: lateEnv });
    const got = consumer.verified.slice(before).map((e) => e.event.data.job_id);
    expect(got.sort()).toEqual([...jobIds].sort());

    for (const args of [['--since', 'yesterday'], [], ['--since', '1h', '--kind', 'nonsense']]) {
      const bad = await runCliCaptured(['destinations', 'backfill', 'late', ...args], { env: lateEnv });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(/--(since|kind)/);
    }
  });

  it('tells the truth in --help', async () => {
    const help = await runCliCaptured(['destinations', '--help']);
    for (const command of ['list', 'replay', 'backfill', 'resume', 'test', 'deliver', 'purge'])
      expect(help.stdout).toContain(command);
    const replay = await runCliCaptured(['destinations', 'replay', '--help']);
    expect(replay.stdout).toContain('--failed');
    expect(replay.stdout).toContain('--since <iso>');
    const serve = await runCliCaptured(['serve', '--help']);
    expect(serve.stdout).toContain('--destinations <file>');
  });
});
