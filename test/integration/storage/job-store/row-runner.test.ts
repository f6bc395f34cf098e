/**
 * The SQLite row runner: one prepared statement run row by row, and its fallbacks to multi-row chunks
 * when a statement's parameters do not start with the row's values or the rows' columns differ.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HooksyncDatabase } from '../../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../../src/storage/open-migrated-database.js';

describe('SQLite row runner', () => {
  let dir: string;
  let database: HooksyncDatabase;
  const at = '2026-03-04T10:00:00.000Z';
  const entry = (jobId: string, extra: Record<string, unknown> = {}) => ({
    job_id: jobId,
    kind: 'job_change' as const,
    state: 'pending' as const,
    origin: 'track' as const,
    attempts: 0,
    created_at: at,
    updated_at: at,
    ...extra,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-rows-'));
    database = await openMigratedDatabase(join(dir, 'rows.db'));
  });
  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ledger = () => database.db.selectFrom('expected_jobs').selectAll().orderBy('job_id').execute();

  it('runs an insert row by row inside the transaction and returns what RETURNING gives, in order', async () => {
    const rows = ['b', 'a', 'c'].map((id) => entry(id));
    const returned = await database.db.transaction().execute((trx) =>
      database.rowRunner.run(trx, rows, (t, chunk) =>
        t
          .insertInto('expected_jobs')
          .values(chunk)
          .onConflict((oc) => oc.column('job_id').doNothing())
          .returning('job_id'),
      ),
    );
    expect(returned.map((r) => r.job_id)).toEqual(['b', 'a', 'c']);
    // The conflict clause comes after the row's values: it still applies, row by row.
    const again = await database.db.transaction().execute((trx) =>
      database.rowRunner.run(trx, [entry('a'), entry('d')], (t, chunk) =>
        t
          .insertInto('expected_jobs')
          .values(chunk)
          .onConflict((oc) => oc.column('job_id').doNothing())
          .returning('job_id'),
      ),
    );
    expect(again.map((r) => r.job_id)).toEqual(['d']);
    expect((await ledger()).map((r) => r.job_id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('rolls back with its transaction', async () => {
    await expect(
      database.db.transaction().execute(async (trx) => {
        await database.rowRunner.run(trx, [entry('rolled-back')], (t, chunk) =>
          t.insertInto('expected_jobs').values(chunk),
        );
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await ledger()).map((r) => r.job_id)).not.toContain('rolled-back');
  });

  it('falls back to one statement when the parameters do not start with the row', async () => {
    await database.db.transaction().execute((trx) =>
      database.rowRunner.run(trx, [{ job_id: 'a' }, { job_id: 'b' }], (t, chunk) =>
        t
          .updateTable('expected_jobs')
          .set({ state: 'received' })
          .where(
            'job_id',
            'in',
            chunk.map((r) => r.job_id),
          ),
      ),
    );
    const states = Object.fromEntries((await ledger()).map((r) => [r.job_id, r.state]));
    expect(states).toMatchObject({ a: 'received', b: 'received', c: 'pending' });
  });

  it('falls back to multi-row statements when the rows do not share their columns', async () => {
    await database.db
      .transaction()
      .execute((trx) =>
        database.rowRunner.run(trx, [entry('e'), entry('f', { last_error: 'timed out' })], (t, chunk) =>
          t.insertInto('expected_jobs').values(chunk),
        ),
      );
    const errors = Object.fromEntries((await ledger()).map((r) => [r.job_id, r.last_error]));
    expect(errors).toMatchObject({ e: null, f: 'timed out' });
  });
});
