/**
 * `purge --person`: an erasure request for one LinkedIn URL. Always deleted: the person's persons rows,
 * the job_changes rows about them (as the contact asked for or as the person found), and quarantined
 * bodies that mention them (refused copies, kept only for diagnosis), and `hooksync launch` records of
 * requests that name them. Stored envelopes that mention them
 * are verbatim records that may hold other people too (a Search Contact page): they are reported, and
 * deleted with all their rows only when `includeJobs` says so. See docs/operations.md, Retention.
 */
import { type Kysely, type SqlBool, sql } from 'kysely';
import { chunkForParameters } from './chunk-for-parameters.js';
import { classifyStorageError } from './classify-storage-error.js';
import type { Database } from './database.js';
import { decodeEnvelope } from './envelope-codec.js';
import { normalizeAllQueuedJobs } from './job-store/normalization-queue.js';
import type { HooksyncDatabase } from './open-database.js';
import { erasePersonTexts } from './person-texts.js';
import {
  isSameLinkedinUrl,
  linkedinUrlLikePattern,
  parseLinkedinUrl,
  textMentionsLinkedinUrl,
} from './purge-linkedin-url.js';
import { createEmptyPurgeCounts, type PurgeReport } from './purge-report.js';
import { decodeQuarantineBody } from './quarantine/quarantine-body.js';

/** Knobs of {@link purgePerson}. */
export interface PurgePersonOptions {
  /** The person's LinkedIn URL, compared trimmed, case-insensitively, without trailing slashes. */
  readonly linkedinUrl: string;
  /**
   * Also delete every stored job whose envelope mentions the person, with all its rows (default false). The
   * jobs are found through the rows derived from them, and by reading those of an unknown kind or shape.
   */
  readonly includeJobs?: boolean;
  /** Count, delete nothing (default false). */
  readonly dryRun?: boolean;
}

/** Keys per statement when deleting by key lists (far below both dialects' parameter limits). */
const KEYS_PER_STATEMENT = 500;
/** Envelopes read back per statement (each decoded and searched). */
const ENVELOPES_PER_READ = 50;

/** What one purge deletes, by key. */
interface PersonPurgePlan {
  readonly persons: Map<string, { job_id: string; position: number }>;
  readonly jobChanges: Set<string>;
  readonly companies: Set<string>;
  readonly quarantine: Set<string>;
  /** `hooksync launch` records whose request names the person (a job-change check of them). */
  readonly launchRows: Set<string>;
  /** watch_changes ids whose before, after or carried fields mention the person. */
  readonly watchChanges: Set<string>;
  /** Jobs whose envelope mentions the person. */
  readonly mentioning: string[];
}

function likeMatch(column: string, pattern: string) {
  // ESCAPE '\' on both dialects: the pattern escapes LIKE's own wildcards with a backslash.
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** Quarantined bodies read per statement by {@link quarantineMentions}. */
const QUARANTINE_SCAN_BATCH = 100;

/**
 * Ids of the quarantined bodies that mention the person. The bodies are stored compressed, so SQL cannot
 * pre-filter them: every body is decoded and checked here, a batch at a time. A scan is acceptable
 * because the quarantine is bounded by its byte budget (trim-quarantine.ts).
 */
async function quarantineMentions(db: Kysely<Database>, needle: string): Promise<Set<string>> {
  const found = new Set<string>();
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('quarantine')
      .select(['id', 'body_z'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(QUARANTINE_SCAN_BATCH)
      .execute();
    for (const row of rows) {
      if (textMentionsLinkedinUrl(decodeQuarantineBody(row.body_z).toString('utf8'), needle))
        found.add(row.id);
    }
    if (rows.length < QUARANTINE_SCAN_BATCH) return found;
    after = rows[rows.length - 1]!.id;
  }
}

function personKey(jobId: string, position: number): string {
  return `${jobId}\u0000${position}`;
}

/**
 * The stored jobs whose envelope mentions the person, found without reading every envelope (they are
 * compressed: SQL cannot search them): the jobs the person's persons and job_changes rows came from, those
 * an earlier purge of the person kept (kept_mentions), and the jobs whose rows may not show everything
 * they hold (a kind or shape this version does not know). Each candidate's envelope is decoded and
 * searched exactly.
 */
async function jobsMentioning(db: Kysely<Database>, needle: string, fromRows: readonly string[]) {
  const unusual = await db
    .selectFrom('jobs')
    .select('job_id')
    .where((eb) => eb.or([eb('kind', '=', 'unknown'), eb('schema_valid', '=', 0)]))
    .execute();
  const candidates = [...new Set([...fromRows, ...unusual.map((row) => row.job_id)])];
  const mentioning: string[] = [];
  for (const ids of chunkForParameters(candidates, 1, ENVELOPES_PER_READ)) {
    for (const row of await db
      .selectFrom('jobs')
      .select(['job_id', 'envelope_z'])
      .where('job_id', 'in', ids)
      .execute()) {
      if (textMentionsLinkedinUrl(decodeEnvelope(row.envelope_z), needle)) mentioning.push(row.job_id);
    }
  }
  return mentioning;
}

async function planPersonPurge(
  db: Kysely<Database>,
  needle: string,
  includeJobs: boolean,
): Promise<PersonPurgePlan> {
  const pattern = linkedinUrlLikePattern(needle);
  const persons = new Map<string, { job_id: string; position: number }>();
  for (const row of await db
    .selectFrom('persons')
    .select(['job_id', 'position', 'linkedin_url'])
    .where(likeMatch('linkedin_url', pattern))
    .execute()) {
    if (isSameLinkedinUrl(row.linkedin_url, needle)) {
      persons.set(personKey(row.job_id, row.position), { job_id: row.job_id, position: row.position });
    }
  }
  const jobChanges = new Set<string>();
  for (const row of await db
    .selectFrom('job_changes')
    .select(['job_id', 'linkedin_url', 'contact_linkedin'])
    .where((eb) => eb.or([likeMatch('linkedin_url', pattern), likeMatch('contact_linkedin', pattern)]))
    .execute()) {
    if (isSameLinkedinUrl(row.linkedin_url, needle) || isSameLinkedinUrl(row.contact_linkedin, needle)) {
      jobChanges.add(row.job_id);
    }
  }
  const quarantine = await quarantineMentions(db, needle);
  const launchRows = new Set<string>();
  for (const row of await db
    .selectFrom('launch_rows')
    .select(['row_key', 'request'])
    .where(likeMatch('request', pattern))
    .execute()) {
    if (textMentionsLinkedinUrl(row.request, needle)) launchRows.add(row.row_key);
  }
  const watchChanges = new Set<string>();
  for (const row of await db
    .selectFrom('watch_changes')
    .select(['id', 'before', 'after', 'custom_fields'])
    .where((eb) =>
      eb.or([likeMatch('after', pattern), likeMatch('before', pattern), likeMatch('custom_fields', pattern)]),
    )
    .execute()) {
    const texts = [row.after, row.before ?? '', row.custom_fields];
    if (texts.some((text) => textMentionsLinkedinUrl(text, needle))) watchChanges.add(String(row.id));
  }
  const kept = await db
    .selectFrom('kept_mentions')
    .select('job_id')
    .where('linkedin_url', '=', needle)
    .execute();
  const mentioning = await jobsMentioning(db, needle, [
    ...[...persons.values()].map((row) => row.job_id),
    ...jobChanges,
    ...kept.map((row) => row.job_id),
  ]);
  // Sorted here, not by ORDER BY: the order must not depend on the database's collation.
  mentioning.sort();
  const companies = new Set<string>();
  if (includeJobs) {
    for (const ids of chunkForParameters(mentioning, 1, KEYS_PER_STATEMENT)) {
      for (const row of await db
        .selectFrom('persons')
        .select(['job_id', 'position'])
        .where('job_id', 'in', ids)
        .execute()) {
        persons.set(personKey(row.job_id, row.position), row);
      }
      for (const row of await db
        .selectFrom('job_changes')
        .select('job_id')
        .where('job_id', 'in', ids)
        .execute())
        jobChanges.add(row.job_id);
      for (const row of await db
        .selectFrom('companies')
        .select('job_id')
        .where('job_id', 'in', ids)
        .execute())
        companies.add(row.job_id);
    }
  }
  return { persons, jobChanges, companies, quarantine, launchRows, watchChanges, mentioning };
}

async function deleteByKeys(
  keys: Iterable<string>,
  remove: (chunk: string[]) => Promise<{ numDeletedRows: bigint }>,
): Promise<number> {
  let deleted = 0;
  for (const chunk of chunkForParameters([...keys], 1, KEYS_PER_STATEMENT)) {
    deleted += Number((await remove(chunk)).numDeletedRows);
  }
  return deleted;
}

async function executePlan(
  trx: Kysely<Database>,
  plan: PersonPurgePlan,
  includeJobs: boolean,
  needle: string,
) {
  const deleted = createEmptyPurgeCounts();
  // Two parameters per person row: half the keys per statement.
  for (const chunk of chunkForParameters([...plan.persons.values()], 2, KEYS_PER_STATEMENT)) {
    const result = await trx
      .deleteFrom('persons')
      .where((eb) =>
        eb.or(chunk.map((k) => eb.and([eb('job_id', '=', k.job_id), eb('position', '=', k.position)]))),
      )
      .executeTakeFirst();
    deleted.persons += Number(result.numDeletedRows);
  }
  // Their about texts too, kept per job beside the rows.
  const positions = new Map<string, number[]>();
  for (const { job_id, position } of plan.persons.values()) {
    positions.set(job_id, [...(positions.get(job_id) ?? []), position]);
  }
  await erasePersonTexts(trx, positions);
  deleted.job_changes = await deleteByKeys(plan.jobChanges, (ids) =>
    trx.deleteFrom('job_changes').where('job_id', 'in', ids).executeTakeFirst(),
  );
  deleted.companies = await deleteByKeys(plan.companies, (ids) =>
    trx.deleteFrom('companies').where('job_id', 'in', ids).executeTakeFirst(),
  );
  deleted.quarantine = await deleteByKeys(plan.quarantine, (ids) =>
    trx.deleteFrom('quarantine').where('id', 'in', ids).executeTakeFirst(),
  );
  deleted.launch_rows = await deleteByKeys(plan.launchRows, (keys) =>
    trx.deleteFrom('launch_rows').where('row_key', 'in', keys).executeTakeFirst(),
  );
  deleted.watch_changes = await deleteByKeys(plan.watchChanges, (ids) =>
    trx.deleteFrom('watch_changes').where('id', 'in', ids.map(Number)).executeTakeFirst(),
  );
  if (includeJobs) {
    await deleteByKeys(plan.mentioning, (ids) =>
      trx.deleteFrom('kept_mentions').where('job_id', 'in', ids).executeTakeFirst(),
    );
    await deleteByKeys(plan.mentioning, (ids) =>
      trx.deleteFrom('person_texts').where('job_id', 'in', ids).executeTakeFirst(),
    );
    deleted.jobs = await deleteByKeys(plan.mentioning, (ids) =>
      trx.deleteFrom('jobs').where('job_id', 'in', ids).executeTakeFirst(),
    );
  } else {
    const rows = plan.mentioning.map((job_id) => ({ linkedin_url: needle, job_id }));
    for (const chunk of chunkForParameters(rows, 2, KEYS_PER_STATEMENT)) {
      await trx
        .insertInto('kept_mentions')
        .values(chunk)
        .onConflict((oc) => oc.columns(['linkedin_url', 'job_id']).doNothing())
        .execute();
    }
  }
  return deleted;
}

function countPlan(plan: PersonPurgePlan, includeJobs: boolean) {
  const counts = createEmptyPurgeCounts();
  counts.persons = plan.persons.size;
  counts.job_changes = plan.jobChanges.size;
  counts.companies = plan.companies.size;
  counts.quarantine = plan.quarantine.size;
  counts.launch_rows = plan.launchRows.size;
  counts.watch_changes = plan.watchChanges.size;
  counts.jobs = includeJobs ? plan.mentioning.length : 0;
  return counts;
}

/**
 * Purges what is stored about one person, in one transaction (a dry run only counts the rows written so
 * far), after deriving the rows of every job still in the normalization queue, so that none comes back
 * later. The ledger and jti records of deleted jobs stay: a received ledger entry keeps reconcile from
 * fetching the job back.
 * Throws TypeError for an unusable URL, StorageError when the database fails (nothing is deleted then).
 */
export async function purgePerson(
  database: Pick<HooksyncDatabase, 'db' | 'dialect' | 'rowRunner'>,
  options: PurgePersonOptions,
): Promise<PurgeReport> {
  const needle = parseLinkedinUrl(options.linkedinUrl);
  const includeJobs = options.includeJobs === true;
  const dryRun = options.dryRun === true;
  const { db } = database;
  let deleted: PurgeReport['deleted'];
  let mentioning: string[];
  try {
    if (dryRun) {
      // Read outside a transaction: on SQLite a transaction takes the write lock at BEGIN.
      const plan = await planPersonPurge(db, needle, includeJobs);
      deleted = countPlan(plan, includeJobs);
      mentioning = plan.mentioning;
    } else {
      // A job acknowledged but not yet normalized would bring the person's rows back after the purge.
      await normalizeAllQueuedJobs(database);
      ({ deleted, mentioning } = await db.transaction().execute(async (trx) => {
        const plan = await planPersonPurge(trx, needle, includeJobs);
        return {
          deleted: await executePlan(trx, plan, includeJobs, needle),
          mentioning: plan.mentioning,
        };
      }));
    }
  } catch (error) {
    throw classifyStorageError(error);
  }
  return {
    mode: 'person',
    dry_run: dryRun,
    person: needle,
    deleted,
    jobs_mentioning: mentioning,
    include_jobs: includeJobs,
  };
}
