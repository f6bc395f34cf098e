/**
 * What a chaos run must leave behind (design.md: acknowledge only what is committed; nothing forged,
 * nothing lost; exactly once; verbatim), checked against the simulators' own records, and the figures
 * the run prints. Each check states one promise; each can fail.
 */
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { DeliveryRecord } from '../../src/simulator/webhook-dispatcher.js';
import { tamperBody } from '../../src/simulator/webhook-dispatcher.js';
import type { Database } from '../../src/storage/database.js';
import { listJobs } from '../../src/storage/job-queries.js';
import type { JobSource } from '../../src/storage/job-store/job-store-tables.js';
import { countQueued } from '../../src/storage/job-store/normalization-queue.js';
import { listQuarantine } from '../../src/storage/quarantine/list-quarantine.js';
import type { ChaosJob, ChaosRun } from './reliability-chaos-run.js';
import type { ChaosSimulators } from './reliability-chaos-sims.js';

/** Where each stored job came from, read before reconcile runs. */
export async function readStoredSources(db: Kysely<Database>): Promise<Map<string, JobSource>> {
  const rows = await db.selectFrom('jobs').select(['job_id', 'source']).execute();
  return new Map(rows.map((r) => [r.job_id, r.source]));
}

/** Every delivery attempt of both simulators. */
function allDeliveries(sims: ChaosSimulators): DeliveryRecord[] {
  return [...sims.resigning.deliveries(), ...sims.reusing.deliveries()];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

const is4xx = (r: DeliveryRecord): boolean => r.status !== undefined && r.status >= 400 && r.status < 500;

/** Jobs whose callback was answered 200 at least once. */
function acknowledgedJobs(records: readonly DeliveryRecord[]): Set<string> {
  return new Set(records.filter((r) => r.status === 200).map((r) => r.job_id));
}

/**
 * Acknowledged means committed: every job the receivers answered 200 for was stored before reconcile ran,
 * through the SIGKILLs. And no clean delivery (fault none or duplicate) was ever refused with a 4xx:
 * neither a crash, a restart, a rotated key nor a reused token may turn a genuine callback into a refusal.
 */
export function checkAcknowledgements(sims: ChaosSimulators, storedBefore: ReadonlyMap<string, JobSource>) {
  const records = allDeliveries(sims);
  const lost = [...acknowledgedJobs(records)].filter((id) => !storedBefore.has(id));
  expect(lost, 'answered 200 but not stored').toEqual([]);
  const refusedClean = records.filter((r) => (r.fault === null || r.fault === 'duplicate') && is4xx(r));
  expect(refusedClean, 'genuine callbacks refused').toEqual([]);
}

function expectedRowCounts(
  kind: string,
  text: string,
): { persons: number; companies: number; changes: number } {
  const output = (JSON.parse(text) as { output?: Record<string, unknown> }).output ?? {};
  if (kind === 'search_contact') {
    return { persons: (output.persons as unknown[]).length, companies: 0, changes: 0 };
  }
  if (kind === 'job_change') {
    const person = output.person as Record<string, unknown>;
    return { persons: Object.keys(person).length > 0 ? 1 : 0, companies: 0, changes: 1 };
  }
  return { persons: 0, companies: 1, changes: 0 };
}

async function countRowsByJob(db: Kysely<Database>, table: 'persons' | 'companies' | 'job_changes') {
  const rows = await db
    .selectFrom(table)
    .select(['job_id', (eb) => eb.fn.countAll<string | number>().as('n')])
    .groupBy('job_id')
    .execute();
  return new Map(rows.map((r) => [r.job_id, Number(r.n)]));
}

/** Longest wait for the receivers' normalizers to write the rows of every acknowledged job. */
const NORMALIZATION_TIMEOUT_MS = 60_000;

/** Waits until the normalization queue is empty (a receiver killed before normalizing leaves rows there). */
async function waitForNormalization(db: Kysely<Database>): Promise<void> {
  const deadline = Date.now() + NORMALIZATION_TIMEOUT_MS;
  let queued = await countQueued(db);
  while (queued > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    queued = await countQueued(db);
  }
  expect(queued, 'jobs still waiting for their normalized rows').toBe(0);
}

/**
 * Exactly once and verbatim: one row per launched job and none other, each byte for byte the simulator's
 * text, written once (revision 1, finished), with exactly the normalized rows its envelope gives once the
 * receivers' normalizers are done (those rows follow the acknowledgement).
 */
export async function checkStoredJobs(
  db: Kysely<Database>,
  sims: ChaosSimulators,
  jobs: readonly ChaosJob[],
) {
  await waitForNormalization(db);
  const rows = await listJobs(db);
  const launched = new Map(jobs.map((j) => [j.job_id, j]));
  expect(rows.length).toBe(jobs.length);
  expect(
    rows.filter((r) => !launched.has(r.job_id)).map((r) => r.job_id),
    'stored but never launched',
  ).toEqual([]);
  const differing = rows.filter((r) => r.envelope !== sims.jobText(r.job_id)).map((r) => r.job_id);
  expect(differing, 'stored envelope differs from the simulator copy').toEqual([]);
  const wrong = rows
    .filter((r) => r.revision !== 1 || r.status !== 'SUCCEEDED' || r.kind !== launched.get(r.job_id)?.kind)
    .map((r) => `${r.job_id} ${r.kind} ${r.status} revision ${r.revision}`);
  expect(wrong, 'not stored once, finished, of its kind').toEqual([]);

  const persons = await countRowsByJob(db, 'persons');
  const companies = await countRowsByJob(db, 'companies');
  const changes = await countRowsByJob(db, 'job_changes');
  const badRows: string[] = [];
  for (const row of rows) {
    const want = expectedRowCounts(row.kind, row.envelope);
    const got = {
      persons: persons.get(row.job_id) ?? 0,
      companies: companies.get(row.job_id) ?? 0,
      changes: changes.get(row.job_id) ?? 0,
    };
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      badRows.push(`${row.job_id}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
    }
  }
  expect(badRows, 'normalized rows not exactly once').toEqual([]);
  for (const counts of [persons, companies, changes]) {
    expect(
      [...counts.keys()].filter((id) => !launched.has(id)),
      'normalized rows of no job',
    ).toEqual([]);
  }
  return rows;
}

/**
 * The chaos runs check that every refusal is kept: the per-reason quarantine rate (60 a minute by default,
 * issue 15) is lifted for them.
 */
export const CHAOS_RECEIVER_ENV = Object.freeze({ HOOKSYNC_QUARANTINE_RATE_PER_MINUTE: '1000000' });
/** Bytes kept of an unsigned body (issue 15): its prefix. */
const UNSIGNED_PREFIX_BYTES = 64 * 1024;

/**
 * Every refusal kept with its reason: each quarantined body is a tampered or unsigned copy of a launched
 * job, byte for byte what the simulator sent (an unsigned one up to its 64 KiB prefix), under the matching reason; each tampered or unsigned
 * attempt answered 4xx has its row (a row may also exist for an attempt cut by a SIGKILL after it was
 * recorded, never more rows than attempts).
 */
export async function checkQuarantine(
  db: Kysely<Database>,
  sims: ChaosSimulators,
  jobs: readonly ChaosJob[],
) {
  const rows = await listQuarantine(db);
  const launched = new Set(jobs.map((j) => j.job_id));
  const records = groupBy(
    allDeliveries(sims).filter((r) => r.attempt > 0),
    (r) => r.job_id,
  );
  const problems: string[] = [];
  for (const row of rows) {
    const jobId = row.claimed_job_id ?? '';
    const fault =
      row.reason === 'BODY_HASH_MISMATCH'
        ? 'tamper'
        : row.reason === 'SIGNATURE_MISSING'
          ? 'unsigned'
          : undefined;
    const text = sims.jobText(jobId);
    if (fault === undefined || !launched.has(jobId) || text === undefined) {
      problems.push(`unexpected quarantine row: ${row.reason} for ${jobId}`);
      continue;
    }
    if (!(records.get(jobId) ?? []).some((r) => r.fault === fault))
      problems.push(`${jobId}: ${row.reason} without a ${fault} delivery`);
    const sent = Buffer.from(fault === 'tamper' ? tamperBody(text) : text, 'utf8');
    const kept = fault === 'unsigned' ? sent.subarray(0, UNSIGNED_PREFIX_BYTES) : sent;
    if (!kept.equals(Buffer.from(row.body)))
      problems.push(`${jobId}: quarantined body differs from what was sent`);
  }
  const rowsByJob = countBy(rows, (r) => `${r.claimed_job_id}`);
  for (const [jobId, attempts] of records) {
    const faulty = attempts.filter((r) => r.fault === 'tamper' || r.fault === 'unsigned');
    if (faulty.length === 0) continue;
    const kept = rowsByJob[jobId] ?? 0;
    const refused = faulty.filter(is4xx).length;
    if (kept < refused || kept > faulty.length) {
      problems.push(`${jobId}: ${kept} quarantine rows for ${refused} refusals of ${faulty.length} attempts`);
    }
  }
  expect(problems).toEqual([]);
  return countBy(rows, (r) => r.reason);
}

/** Recovery: the ledger closed every launched job, and what reconcile stored is exactly what was missing. */
export async function checkRecovery(
  db: Kysely<Database>,
  run: ChaosRun,
  storedBefore: ReadonlyMap<string, JobSource>,
  recovered: number,
) {
  const missing = run.jobs.filter((j) => !storedBefore.has(j.job_id));
  expect(recovered, 'recovered by reconcile').toBe(missing.length);
  expect(
    missing.filter((j) => j.kind === 'company_reveal'),
    'reveals only a launch or callback can bring',
  ).toEqual([]);
  const sources = await readStoredSources(db);
  // Reconcile fetched exactly the missing jobs; what was stored before kept its source.
  const wrongSource = run.jobs
    .filter((j) => sources.get(j.job_id) !== (storedBefore.get(j.job_id) ?? 'finder'))
    .map((j) => `${j.job_id}: ${storedBefore.get(j.job_id)} then ${sources.get(j.job_id)}`);
  expect(wrongSource).toEqual([]);
  const ledger = await db
    .selectFrom('expected_jobs')
    .select(['state', (eb) => eb.fn.countAll<string | number>().as('n')])
    .groupBy('state')
    .execute();
  expect(Object.fromEntries(ledger.map((r) => [r.state, Number(r.n)]))).toEqual({
    received: run.jobs.length,
  });
}

/**
 * The run did what the issue asks, so the checks above are not vacuous: every fault happened, both retry
 * token policies were exercised (a retry with a fresh jti, a retry with the first one), the rotated key
 * signed, and the crashes cost deliveries (refused connections, cut sockets, or 502s from the proxy).
 */
export function checkChaosCoverage(sims: ChaosSimulators, run: ChaosRun) {
  const records = allDeliveries(sims);
  const faults = countBy(
    records.filter((r) => r.attempt <= 1 && r.copy === 1),
    (r) => r.fault ?? 'none',
  );
  for (const fault of ['drop', 'duplicate', 'tamper', 'unsigned'])
    expect(faults[fault] ?? 0, fault).toBeGreaterThan(0);
  const retries = (sim: ChaosSimulators['resigning']) => {
    const firstJti = new Map<string, string | null>();
    let resigned = 0;
    let reused = 0;
    for (const r of sim.deliveries()) {
      if (r.jti === null) continue;
      const key = `${r.job_id}/${r.copy}`;
      if (r.attempt === 1) firstJti.set(key, r.jti);
      else if (r.attempt > 1) {
        if (firstJti.get(key) === r.jti) reused += 1;
        else resigned += 1;
      }
    }
    return { resigned, reused };
  };
  const resigning = retries(sims.resigning);
  const reusing = retries(sims.reusing);
  expect(resigning.resigned, 'retries signed anew').toBeGreaterThan(0);
  expect(resigning.reused).toBe(0);
  expect(reusing.reused, 'retries reusing their token').toBeGreaterThan(0);
  expect(reusing.resigned).toBe(0);
  expect(
    records.some((r) => r.kid === run.rotatedKid),
    'the rotated key signed',
  ).toBe(true);
  const crashCosts =
    records.filter((r) => r.error !== undefined && r.attempt > 0).length +
    records.filter((r) => r.status === 502).length;
  expect(crashCosts, 'deliveries met a crashed receiver').toBeGreaterThan(0);
  return {
    retries_signed_anew: resigning.resigned,
    retries_reusing_token: reusing.reused,
    crash_costs: crashCosts,
  };
}

/** The figures of a run, for the log. */
export async function chaosFigures(
  db: Kysely<Database>,
  sims: ChaosSimulators,
  run: ChaosRun,
  extra: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const records = allDeliveries(sims);
  const firsts = records.filter((r) => r.attempt <= 1 && r.copy === 1);
  const copies = groupBy(
    records.filter((r) => r.attempt > 0),
    (r) => `${r.job_id}/${r.copy}`,
  );
  let exhausted = 0;
  for (const attempts of copies.values()) {
    if (!attempts.some((r) => r.status === 200 || is4xx(r)) && attempts.some((r) => r.attempt === 6))
      exhausted += 1;
  }
  const sources = await readStoredSources(db);
  const webhookStored = [...sources.values()].filter((s) => s === 'webhook').length;
  const answered200 = records.filter((r) => r.status === 200).length;
  const stats = await db
    .selectFrom('delivery_stats')
    .select(['outcome', (eb) => eb.fn.sum<string | number>('count').as('n')])
    .groupBy('outcome')
    .execute();
  return {
    launched: countBy(run.jobs, (j) => j.kind),
    by_sender: countBy(run.jobs, (j) => j.sender),
    faults: countBy(firsts, (r) => r.fault ?? 'none'),
    attempts: records.filter((r) => r.attempt > 0).length,
    answers: countBy(
      records.filter((r) => r.attempt > 0),
      (r) => (r.status === undefined ? `error:${r.error}` : String(r.status)),
    ),
    delivered_200: answered200,
    stored_by_webhook: webhookStored,
    stored_at_launch: [...sources.values()].filter((s) => s === 'launch').length,
    duplicates_absorbed: answered200 - webhookStored,
    exhausted_deliveries: exhausted,
    receiver_counted_outcomes: Object.fromEntries(stats.map((s) => [s.outcome, Number(s.n)])),
    kills: run.killed.length,
    launch_ms: run.launchMs,
    settle_ms: run.settleMs,
    ...extra,
  };
}
