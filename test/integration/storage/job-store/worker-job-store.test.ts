/**
 * serve's job store on its worker thread, on a real SQLite file: what crosses the thread boundary, the
 * normalizer behind it, and what happens when the worker dies (what it held is failed as retryable, what it
 * never got waits, a new worker takes over).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StorageError } from '../../../../src/errors.js';
import { DEFAULT_DEFER_ABOVE_CHARS } from '../../../../src/storage/job-store/job-store.js';
import { countQueued } from '../../../../src/storage/job-store/normalization-queue.js';
import {
  startWorkerJobStore,
  type WorkerJobStore,
} from '../../../../src/storage/job-store/worker-job-store.js';
import type { HooksyncDatabase } from '../../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../../src/storage/open-migrated-database.js';
import { BUILT_STORE_WORKER } from '../../../helpers/ensure-built.js';
import { companyRevealText, searchContactText, testUuid } from '../../../unit/storage/envelope-texts.js';

/** The job_id on which test/helpers/crashing-store-worker.mjs exits. */
const CRASHING_JOB_ID = 'dead0000-0000-4000-8000-000000000000';
const CRASHING_WORKER = new URL('../../../helpers/crashing-store-worker.mjs', import.meta.url);
const NOW_MS = Date.UTC(2026, 2, 4, 10, 0, 0);

describe('the worker job store', () => {
  let dir: string;
  let url: string;
  let database: HooksyncDatabase;
  const stores: WorkerJobStore[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-worker-'));
    url = join(dir, 'worker.db');
    database = await openMigratedDatabase(url);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (workerUrl: URL = BUILT_STORE_WORKER, more: { retireAfterMs?: number } = {}) => {
    const store = await startWorkerJobStore({ databaseUrl: url, now: () => NOW_MS, workerUrl, ...more });
    stores.push(store);
    return store;
  };
  const personsOf = (jobId: string) =>
    database.db.selectFrom('persons').select('job_id').where('job_id', '=', jobId).execute();
  const storedIds = async () =>
    (await database.db.selectFrom('jobs').select('job_id').execute()).map((row) => row.job_id).sort();

  it('stores, quarantines and normalizes on its thread, dated by the caller’s clock', async () => {
    const store = await start();
    const reveal = testUuid(1);
    const page = testUuid(2);
    const pageText = searchContactText(page, 40);
    expect(pageText.length).toBeGreaterThan(DEFAULT_DEFER_ABOVE_CHARS);
    const [a, b] = await Promise.all([
      store.store({ envelopeText: companyRevealText(reveal), source: 'webhook', jti: 'j-1' }),
      store.store({ envelopeText: pageText, source: 'webhook', jti: 'j-2' }),
      store.quarantine({ reason: 'SIGNATURE_INVALID', body: Buffer.from('{"x":1}') }),
    ]);
    expect(a).toMatchObject({ job_id: reveal, outcome: 'stored', schemaValid: true, revision: 1 });
    expect(b).toMatchObject({ job_id: page, outcome: 'stored', schemaValid: true });
    // The reveal's company came with it; the page's persons follow the acknowledgement.
    const companies = await database.db.selectFrom('companies').select('received_at').execute();
    expect(companies).toEqual([{ received_at: new Date(NOW_MS).toISOString() }]);
    await store.settled();
    expect(await countQueued(database.db)).toBe(0);
    expect(await personsOf(page)).toHaveLength(40);
    expect(store.stats().committedItems).toBeGreaterThanOrEqual(3);
    await expect(
      store.store({ envelopeText: companyRevealText(reveal), source: 'webhook', jti: 'j-1' }),
    ).resolves.toMatchObject({ outcome: 'replay', duplicate: true });
    await store.close();
    await expect(
      store.store({ envelopeText: companyRevealText(testUuid(3)), source: 'webhook' }),
    ).rejects.toMatchObject({ transient: true });
  });

  it('takes a page body to its worker without a copy, and gives it back on a replay', async () => {
    const store = await start();
    const first = searchContactText(testUuid(7), 40);
    const other = searchContactText(testUuid(8), 40);
    const bodyOf = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
    // Both with one jti: the second is a replay of it.
    const storeWithJti = (text: string, bytes: Uint8Array) =>
      store.store({ envelopeText: text, envelopeBytes: bytes, source: 'webhook', jti: 'p-1' });
    const body = bodyOf(first);
    const stored = await storeWithJti(first, body);
    expect(stored).toMatchObject({ outcome: 'stored' });
    expect(stored.envelopeBytes).toBeUndefined();
    // Transferred: the caller's buffer is detached.
    expect(body.byteLength).toBe(0);
    const reused = bodyOf(other);
    const replay = await storeWithJti(other, reused);
    expect(replay).toMatchObject({ outcome: 'replay', job_id: testUuid(8) });
    expect(reused.byteLength).toBe(0);
    expect(Buffer.from(replay.envelopeBytes!).toString('utf8')).toBe(other);
    await store.close();
  });

  it('fails what a dead worker held as retryable, and carries on with a new one', async () => {
    const store = await start(CRASHING_WORKER);
    const before = testUuid(10);
    const after = testUuid(11);
    await store.store({ envelopeText: companyRevealText(before), source: 'webhook' });
    const crash = store.store({ envelopeText: companyRevealText(CRASHING_JOB_ID), source: 'webhook' });
    await expect(crash).rejects.toBeInstanceOf(StorageError);
    await expect(crash).rejects.toMatchObject({ transient: true });
    expect(store.ready()).toBe(false);
    // Sent while the worker is down: it waits for the next one rather than failing.
    const meanwhile = store.store({ envelopeText: companyRevealText(after), source: 'webhook' });
    await expect(meanwhile).resolves.toMatchObject({ job_id: after, outcome: 'stored' });
    expect(store.ready()).toBe(true);
    const ids = await storedIds();
    expect(ids).toContain(before);
    expect(ids).toContain(after);
    expect(ids).not.toContain(CRASHING_JOB_ID);
  });

  it('retires its worker once idle, its normalizer settled first, and wakes one for the next job', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const retired = () => lines.filter((line) => line.includes('store worker retired')).length;
    const store = await startWorkerJobStore({
      databaseUrl: url,
      now: () => NOW_MS,
      workerUrl: BUILT_STORE_WORKER,
      logger,
      retireAfterMs: 20,
    });
    stores.push(store);
    const page = testUuid(20);
    await store.store({ envelopeText: searchContactText(page, 40), source: 'webhook' });
    await vi.waitFor(() => expect(retired()).toBe(1), { timeout: 30_000, interval: 20 });
    expect(store.ready()).toBe(true);
    // Retired only after its normalizer gave the page its rows.
    expect(await personsOf(page)).toHaveLength(40);
    const next = testUuid(21);
    await expect(
      store.store({ envelopeText: companyRevealText(next), source: 'webhook' }),
    ).resolves.toMatchObject({ job_id: next, outcome: 'stored' });
    expect(await storedIds()).toContain(next);
    await vi.waitFor(() => expect(retired()).toBe(2), { timeout: 30_000, interval: 20 });
    await store.close();
  });
});
