/**
 * `hooksync purge` on one dialect: a database seeded with old and recent jobs, ledger entries, jti
 * records, quarantined bodies and delivery counts, purged through the CLI (dry run first, then for real)
 * and through the library with a fake clock. The same tests run on SQLite and Postgres.
 */

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../../src/storage/database.js';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { epochSeconds, jtiKey } from '../../../src/storage/job-store/jti-key.js';
import { recordExpectedJobs } from '../../../src/storage/ledger/record-expected-jobs.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { decodePersonTexts } from '../../../src/storage/person-texts.js';
import { purgeOlderThan } from '../../../src/storage/purge-older-than.js';
import type { PurgeReport } from '../../../src/storage/purge-report.js';
import { listQuarantine } from '../../../src/storage/quarantine/list-quarantine.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { envelopeText } from '../../helpers/envelope-texts.js';

/** How the suite gets an empty database of its dialect. */
export interface PurgeSuiteSetup {
  provision(): Promise<{ url: string; drop: () => Promise<void> }>;
}

const DAY_MS = 86_400_000;
const LENA = 'https://www.linkedin.com/in/lena-vogel-sales';
const TOBIAS = 'https://www.linkedin.com/in/tobias-brandt';
const JIDE = 'https://www.linkedin.com/in/jide-okafor';
const MARIA = 'https://www.linkedin.com/in/maria-keller-4b1a2';
/** Lena's URL as another system might have typed it: other case, a trailing slash. */
const LENA_TYPED = 'HTTPS://www.LinkedIn.com/in/Lena-Vogel-Sales/';
/** Someone else whose URL merely starts with Lena's. */
const LENA_LOOKALIKE = 'https://www.linkedin.com/in/lena-vogel-sales-2';
const TABLES = [
  'jobs',
  'persons',
  'companies',
  'job_changes',
  'deliveries',
  'quarantine',
  'expected_jobs',
  'delivery_stats',
] as const satisfies readonly (keyof Database)[];

/** The seeded jobs, by role. */
interface Seeded {
  /** 100 days old: a search page with Lena and Tobias, Maria's job change, a company reveal. */
  oldSearch: string;
  oldJobChange: string;
  oldReveal: string;
  /** A day old: a search page with Lena and Tobias, a job change about Lena, a page with the lookalike. */
  newSearch: string;
  newJobChange: string;
  lookalikeSearch: string;
  /** A pending ledger entry from 100 days ago (never received): purges keep it. */
  pendingOld: string;
}

/** Registers the purge tests. */
export function definePurgeSuite(setup: PurgeSuiteSetup): void {
  let provisioned: { url: string; drop: () => Promise<void> };
  let database: HooksyncDatabase;
  let seeded: Seeded;
  let nowMs: number;

  const counts = async (): Promise<Record<(typeof TABLES)[number], number>> => {
    const entries = await Promise.all(
      TABLES.map(async (table) => {
        const row = await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        return [table, Number(row.n)] as const;
      }),
    );
    return Object.fromEntries(entries) as Record<(typeof TABLES)[number], number>;
  };
  const purge = async (args: string[]): Promise<PurgeReport> => {
    const run = await runCliCaptured(['purge', ...args, '--json', '--database-url', provisioned.url]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout) as PurgeReport;
  };
  const personUrls = async (): Promise<string[]> =>
    (await database.db.selectFrom('persons').select('linkedin_url').execute())
      .map((row) => row.linkedin_url ?? '')
      .sort();

  beforeAll(async () => {
    provisioned = await setup.provision();
    database = await openMigratedDatabase(provisioned.url);
  });

  afterAll(async () => {
    await database?.close();
    await provisioned?.drop();
  });

  beforeEach(async () => {
    for (const table of [
      ...TABLES,
      'reconcile_runs',
      'leases',
      'export_cursors',
      'normalization_queue',
      'kept_mentions',
      'person_texts',
    ] as const) {
      await database.db.deleteFrom(table).execute();
    }
    // The CLI reads the real clock: seed relative to it.
    nowMs = Date.now();
    seeded = await seed(database, nowMs);
  });

  it('--older-than --dry-run counts what is older, deletes nothing; the purge then deletes exactly that', async () => {
    const before = await counts();
    const dry = await purge(['--older-than', '90d', '--dry-run']);
    expect(dry).toMatchObject({ mode: 'older_than', dry_run: true });
    expect(Date.parse(dry.cutoff!)).toBeGreaterThan(nowMs - 90 * DAY_MS - 60_000);
    const expected = {
      jobs: 3,
      persons: 3, // Lena and Tobias on the old page, Maria from the old job change
      companies: 1,
      job_changes: 1,
      deliveries: 1, // the old token's record; the recent one is younger
      quarantine: 1,
      expected_jobs: 3, // the three old jobs' received entries; the old pending entry stays
      delivery_stats: 2, // two outcomes in an hour 100 days ago; the recent hour stays
      launch_rows: 0,
      watch_changes: 0,
    };
    expect(dry.deleted).toEqual(expected);
    expect(await counts()).toEqual(before);

    const done = await purge(['--older-than', '90d']);
    expect(done).toMatchObject({ mode: 'older_than', dry_run: false, deleted: expected });
    const after = await counts();
    for (const table of TABLES) expect(after[table]).toBe(before[table] - expected[table]);
    const jobs = (await database.db.selectFrom('jobs').select('job_id').execute()).map((r) => r.job_id);
    expect(jobs.sort()).toEqual([seeded.newSearch, seeded.newJobChange, seeded.lookalikeSearch].sort());
    const ledger = await database.db.selectFrom('expected_jobs').select(['job_id', 'state']).execute();
    expect(ledger).toContainEqual({ job_id: seeded.pendingOld, state: 'pending' });
    // Nothing derived from a purged job is left behind.
    for (const table of ['persons', 'companies', 'job_changes'] as const) {
      const orphans = await database.db
        .selectFrom(table)
        .select('job_id')
        .where('job_id', 'in', [seeded.oldSearch, seeded.oldJobChange, seeded.oldReveal])
        .execute();
      expect(orphans).toEqual([]);
    }
  });

  /** Puts `jobId` back as serve leaves it between acknowledging and normalizing: queued, without rows. */
  const unnormalize = async (jobId: string): Promise<void> => {
    for (const table of ['persons', 'companies', 'job_changes'] as const) {
      await database.db.deleteFrom(table).where('job_id', '=', jobId).execute();
    }
    const job = await database.db
      .selectFrom('jobs')
      .select(['revision', 'updated_at'])
      .where('job_id', '=', jobId)
      .executeTakeFirstOrThrow();
    await database.db
      .insertInto('normalization_queue')
      .values({ job_id: jobId, revision: job.revision, stored_at: job.updated_at })
      .execute();
  };
  const queued = async (): Promise<string[]> =>
    (await database.db.selectFrom('normalization_queue').select('job_id').execute()).map((r) => r.job_id);

  it('--older-than also drops the normalization queue rows of the jobs it deletes', async () => {
    await unnormalize(seeded.oldSearch);
    await unnormalize(seeded.newSearch);
    await purge(['--older-than', '90d']);
    expect(await queued()).toEqual([seeded.newSearch]);
  });

  it('--person first derives the rows of queued jobs, so that none brings the person back later', async () => {
    await unnormalize(seeded.newSearch);
    const done = await purge(['--person', LENA]);
    expect(done.deleted.persons).toBe(3);
    expect(await queued()).toEqual([]);
    const urls = await personUrls();
    expect(urls.filter((url) => url.toLowerCase().replace(/\/$/, '') === LENA)).toEqual([]);
    // Tobias, on the queued page too, now has his rows from it.
    const tobias = await database.db
      .selectFrom('persons')
      .select('job_id')
      .where('linkedin_url', '=', TOBIAS)
      .execute();
    expect(tobias.map((r) => r.job_id)).toContain(seeded.newSearch);
  });

  it('--older-than keeps the jti record of a token that can still verify', async () => {
    const report = await purgeOlderThan(database.db, { olderThanMs: 0, now: () => nowMs });
    expect(report.deleted.jobs).toBe(6);
    // The token received a second ago can verify for 15 more minutes: its record still guards replays.
    expect(report.deleted.deliveries).toBe(2);
    expect((await counts()).deliveries).toBe(1);
    expect((await counts()).expected_jobs).toBe(1); // only the pending entry
  });

  it('--person removes the person everywhere it promises and nothing else, keeping the envelopes', async () => {
    const before = await counts();
    const urlsBefore = await personUrls();
    const dry = await purge(['--person', `  ${LENA_TYPED}  `, '--dry-run']);
    const expected = {
      jobs: 0,
      persons: 3, // on both search pages and in the recent job change
      companies: 0,
      job_changes: 1, // the recent job change was about Lena
      deliveries: 0,
      quarantine: 1, // the refused body that mentions her
      expected_jobs: 0,
      delivery_stats: 0,
      launch_rows: 0,
      watch_changes: 0,
    };
    expect(dry).toMatchObject({ mode: 'person', dry_run: true, person: LENA, include_jobs: false });
    expect(dry.deleted).toEqual(expected);
    expect([...dry.jobs_mentioning!]).toEqual(
      [seeded.oldSearch, seeded.newSearch, seeded.newJobChange].sort(),
    );
    expect(await counts()).toEqual(before);

    const abouts = async () =>
      new Map(
        (await database.db.selectFrom('person_texts').selectAll().execute()).map((r) => [
          r.job_id,
          decodePersonTexts(r.abouts_z),
        ]),
      );
    expect((await abouts()).get(seeded.oldSearch)?.[0]).toContain('Scaling B2B');
    const done = await purge(['--person', LENA_TYPED]);
    expect(done.deleted).toEqual(expected);
    // Her about text is gone from the pages kept; the lookalike's, the same words, stays.
    const aboutsAfter = await abouts();
    expect(aboutsAfter.get(seeded.oldSearch)?.[0] ?? null).toBeNull();
    expect(aboutsAfter.get(seeded.newSearch)?.[0] ?? null).toBeNull();
    expect(aboutsAfter.get(seeded.lookalikeSearch)?.[0]).toContain('Scaling B2B');
    const after = await counts();
    for (const table of TABLES) expect(after[table]).toBe(before[table] - expected[table]);
    const urlsAfter = await personUrls();
    expect(urlsAfter.filter((url) => url.toLowerCase().replace(/\/$/, '') === LENA)).toEqual([]);
    // Everyone else is still there, the lookalike included.
    expect(urlsAfter).toEqual(urlsBefore.filter((url) => url.toLowerCase().replace(/\/$/, '') !== LENA));
    expect(urlsAfter).toContain(LENA_LOOKALIKE);
    expect(urlsAfter.filter((url) => url === TOBIAS)).toHaveLength(3);
    const changes = await database.db.selectFrom('job_changes').select('job_id').execute();
    expect(changes.map((r) => r.job_id)).toEqual([seeded.oldJobChange]);
    const quarantined = await listQuarantine(database.db);
    expect(quarantined.map((r) => Buffer.from(r.body).toString('utf8'))).toEqual(['{"not":"about anyone"}']);

    // A second purge finds nothing more to delete, but still reports the envelopes it kept.
    const again = await purge(['--person', LENA]);
    expect(Object.values(again.deleted).every((n) => n === 0)).toBe(true);
    expect(again.jobs_mentioning).toHaveLength(3);

    // Her rows are gone, yet --include-jobs still finds the kept envelopes (kept_mentions), and then forgets them.
    const whole = await purge(['--person', LENA, '--include-jobs']);
    expect(whole.deleted.jobs).toBe(3);
    expect([...whole.jobs_mentioning!]).toEqual(dry.jobs_mentioning);
    expect(await database.db.selectFrom('kept_mentions').selectAll().execute()).toEqual([]);
  });

  it('--person --include-jobs deletes the envelopes that mention the person, with every row read from them', async () => {
    const before = await counts();
    const dry = await purge(['--person', LENA, '--include-jobs', '--dry-run']);
    const expected = {
      jobs: 3,
      persons: 5, // both pages whole (Lena and Tobias twice) and the recent job change's person
      companies: 0,
      job_changes: 1,
      deliveries: 0,
      quarantine: 1,
      expected_jobs: 0,
      delivery_stats: 0,
      launch_rows: 0,
      watch_changes: 0,
    };
    expect(dry.deleted).toEqual(expected);
    expect(await counts()).toEqual(before);
    const done = await purge(['--person', LENA, '--include-jobs']);
    expect(done).toMatchObject({ dry_run: false, include_jobs: true, deleted: expected });
    const jobs = (await database.db.selectFrom('jobs').select('job_id').execute()).map((r) => r.job_id);
    expect(jobs.sort()).toEqual([seeded.oldJobChange, seeded.oldReveal, seeded.lookalikeSearch].sort());
    // The ledger still says received, so reconcile does not fetch the deleted jobs back.
    const ledger = await database.db
      .selectFrom('expected_jobs')
      .select('state')
      .where('job_id', 'in', [seeded.oldSearch, seeded.newSearch, seeded.newJobChange])
      .execute();
    expect(ledger.map((r) => r.state)).toEqual(['received', 'received', 'received']);
    expect(await personUrls()).toEqual([LENA_LOOKALIKE, MARIA, TOBIAS].sort());
  });

  it('prints a table per table, and lists the envelopes it kept', async () => {
    const run = await runCliCaptured([
      'purge',
      '--person',
      LENA,
      '--dry-run',
      '--database-url',
      provisioned.url,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^dry run: would delete 5 rows about https:\/\/www\.linkedin\.com\/in\/lena-vogel-sales$/m,
    );
    expect(run.stdout).toMatch(/^persons\s+3$/m);
    expect(run.stdout).toMatch(/^quarantine\s+1$/m);
    expect(run.stdout).toContain('3 stored envelopes still mention the person');
    expect(run.stdout).toContain(seeded.newJobChange);
    expect(run.stdout).toContain('--include-jobs');
  });
}

/** Seeds the database as described on {@link Seeded}; `nowMs` is the real time the CLI will see. */
async function seed(database: HooksyncDatabase, nowMs: number): Promise<Seeded> {
  const clock = { ms: nowMs - 100 * DAY_MS };
  const store = createJobStore({ database, now: () => clock.ms });
  const { db } = database;
  const ids: Seeded = {
    oldSearch: randomUUID(),
    oldJobChange: randomUUID(),
    oldReveal: randomUUID(),
    newSearch: randomUUID(),
    newJobChange: randomUUID(),
    lookalikeSearch: randomUUID(),
    pendingOld: randomUUID(),
  };
  const put = async (text: string, jti?: string) => {
    await recordExpectedJobs(
      db,
      [
        {
          job_id: (JSON.parse(text) as { input: { task: { job_id: string } } }).input.task.job_id,
          kind: 'unknown',
        },
      ],
      'track',
      new Date(clock.ms),
    );
    const result = await store.store({
      envelopeText: text,
      source: 'webhook',
      ...(jti ? { jti, tokenExpiresAt: new Date(clock.ms + 15 * 60_000) } : {}),
    });
    expect(result.outcome).toBe('stored');
  };
  const quarantine = (text: string) =>
    store.quarantine({
      reason: 'BODY_HASH_MISMATCH',
      body: Buffer.from(text, 'utf8'),
      contentType: 'application/json',
    });
  const stats = (hourMs: number) =>
    db
      .insertInto('delivery_stats')
      .values(
        ['stored', 'refused'].map((outcome) => ({
          hour: new Date(Math.floor(hourMs / 3_600_000) * 3_600_000).toISOString(),
          outcome,
          count: 3,
        })),
      )
      .execute();

  await recordExpectedJobs(
    db,
    [{ job_id: ids.pendingOld, kind: 'search_contact' }],
    'track',
    new Date(clock.ms),
  );
  await put(envelopeText('search-contact', ids.oldSearch).text, randomUUID());
  await put(envelopeText('job-change-moved', ids.oldJobChange).text);
  await put(envelopeText('company-reveal', ids.oldReveal).text);
  await quarantine('{"not":"about anyone"}');
  await stats(clock.ms);

  clock.ms = nowMs - DAY_MS;
  await put(envelopeText('search-contact', ids.newSearch).text, randomUUID());
  await put(envelopeText('job-change-left', ids.newJobChange).text.split(JIDE).join(LENA_TYPED));
  await put(envelopeText('search-contact', ids.lookalikeSearch).text.split(LENA).join(LENA_LOOKALIKE));
  await quarantine(envelopeText('search-contact').text.replace('"status"', '"tampered":true,"status"'));
  await stats(clock.ms);
  // A token received moments ago (still valid for 15 minutes) guards its job against a replay.
  clock.ms = nowMs - 1000;
  const fresh = randomUUID();
  await db
    .insertInto('deliveries')
    .values({
      jti_key: jtiKey(fresh),
      received_at_s: epochSeconds(clock.ms, 'down'),
      expires_at_s: epochSeconds(clock.ms + 15 * 60_000, 'up'),
    })
    .execute();
  await store.close();
  return ids;
}
