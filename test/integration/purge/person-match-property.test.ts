/**
 * `purge --person` matching, as a property: whatever the URL (LIKE wildcards, backslashes, non-ASCII),
 * a stored value equal to it once trimmed, lower-cased and stripped of trailing slashes is found in
 * persons, job_changes, quarantined bodies and envelopes, and a value that differs is never taken.
 * Runs the real queries (dry run) on SQLite, and on Postgres when TEST_DATABASE_URL is set.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '../../../src/storage/envelope-codec.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { normalizeLinkedinUrl } from '../../../src/storage/purge-linkedin-url.js';
import { purgePerson } from '../../../src/storage/purge-person.js';
import { quarantineBodyColumns } from '../../../src/storage/quarantine/quarantine-body.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';

/** Characters of URLs and handles, plus the ones LIKE and escaping care about, plus non-ASCII. */
const URL_CHAR = fc.constantFrom(
  ...'abcxyzABCXYZ0189-./:%_\\?=&~ '.split(''),
  'é',
  'É',
  'ü',
  'ø',
  'ß',
  '漢',
  '😀',
);
const URL_TEXT = fc.array(URL_CHAR, { minLength: 3, maxLength: 24 }).map((chars) => `in/${chars.join('')}`);

/** The same URL as another system may have stored it: case flipped here and there, padded, slashed. */
function variantOf(url: string, flips: readonly boolean[], pad: number, slashes: number): string {
  const chars = [...url].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase()));
  return `${' '.repeat(pad)}${chars.join('')}${'/'.repeat(slashes)}${' '.repeat(pad)}`;
}

const TABLES = ['persons', 'job_changes', 'quarantine', 'jobs'] as const;

function defineMatchProperty(provision: () => Promise<{ url: string; drop: () => Promise<void> }>): void {
  let provisioned: { url: string; drop: () => Promise<void> };
  let database: HooksyncDatabase;

  beforeAll(async () => {
    provisioned = await provision();
    database = await openMigratedDatabase(provisioned.url);
  });
  afterAll(async () => {
    await database?.close();
    await provisioned?.drop();
  });

  async function store(value: string): Promise<string> {
    const jobId = randomUUID();
    const at = new Date(0).toISOString();
    const { db } = database;
    const envelope = JSON.stringify({ input: { task: { contact_linkedin: value, job_id: jobId } } });
    await db
      .insertInto('jobs')
      .values({
        job_id: jobId,
        kind: 'job_change',
        status: 'SUCCEEDED',
        context_id: null,
        start_date: null,
        stop_date: null,
        envelope_z: encodeEnvelope(envelope),
        payload_hash: 'x',
        source: 'webhook',
        schema_valid: 0,
        schema_issues: null,
        received_at: at,
        updated_at: at,
      })
      .execute();
    await db
      .insertInto('persons')
      .values({
        job_id: jobId,
        position: 0,
        source_kind: 'job_change',
        linkedin_url: value,
        received_at: at,
      })
      .execute();
    await db
      .insertInto('job_changes')
      .values({ job_id: jobId, contact_linkedin: value, custom_fields: '{}', received_at: at })
      .execute();
    await db
      .insertInto('quarantine')
      .values({
        id: randomUUID(),
        reason: 'BODY_HASH_MISMATCH',
        ...quarantineBodyColumns(Buffer.from(envelope, 'utf8')),
        received_at: at,
      })
      .execute();
    return jobId;
  }

  async function clear(): Promise<void> {
    for (const table of TABLES) await database.db.deleteFrom(table).execute();
  }

  it('finds every stored value equal to the URL once normalized, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(
        URL_TEXT,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        fc.nat({ max: 2 }),
        fc.nat({ max: 2 }),
        URL_TEXT,
        async (url, flips, pad, slashes, other) => {
          const asked = variantOf(url, [...flips].reverse(), pad, 1 - Math.min(slashes, 1));
          const stored = variantOf(url, flips, 2 - pad, slashes);
          // Some case pairs do not round-trip (ß upper-cases to SS): those are different URLs.
          fc.pre(normalizeLinkedinUrl(stored) === normalizeLinkedinUrl(asked));
          fc.pre(normalizeLinkedinUrl(other) !== normalizeLinkedinUrl(asked));
          await clear();
          const same = await store(stored);
          await store(other);
          const report = await purgePerson(database, { linkedinUrl: asked, dryRun: true });
          expect(report.deleted).toMatchObject({ persons: 1, job_changes: 1, quarantine: 1, jobs: 0 });
          expect(report.jobs_mentioning).toEqual([same]);
        },
      ),
      { numRuns: 60 },
    );
    await clear();
  });
}

describe('purge --person matching on SQLite', () => {
  defineMatchProperty(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hooksync-purge-match-'));
    return { url: join(dir, 'hooksync.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  });
});

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('purge --person matching on Postgres'), () => {
  defineMatchProperty(createTestDatabase);
});
