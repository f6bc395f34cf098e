/**
 * The SQLite row runner: one prepared statement run row by row, each row's values bound where the compiled
 * statement puts them (whatever their order), and its fallback to multi-row chunks when the rows' columns
 * differ or a value does not reach the statement as a parameter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../../src/storage/database.js';
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

  it('binds each row where the statement puts its values, not in the order of the row', async () => {
    // set(last_error) comes before where(job_id): the row's values bind in the reverse of its key order.
    // The first row's two values are equal, so only the placeholders can tell the two places apart.
    const rows = [
      { job_id: 'a', last_error: 'a' },
      { job_id: 'b', last_error: 'refused' },
    ];
    await database.db
      .transaction()
      .execute((trx) =>
        database.rowRunner.run(trx, rows, (t, chunk) =>
          t
            .updateTable('expected_jobs')
            .set({ last_error: chunk[0]!.last_error })
            .where('job_id', '=', chunk[0]!.job_id),
        ),
      );
    const errors = Object.fromEntries((await ledger()).map((r) => [r.job_id, r.last_error]));
    expect(errors).toMatchObject({ a: 'a', b: 'refused', c: null });
  });

  it('falls back to multi-row statements when a value is not bound as it is', async () => {
    await database.db.transaction().execute((trx) =>
      database.rowRunner.run(trx, [{ job_id: 'c' }, { job_id: 'd' }], (t, chunk) =>
        t
          .updateTable('expected_jobs')
          .set({ last_error: 'upper' })
          .where(
            'job_id',
            'in',
            chunk.map((r) => r.job_id.toUpperCase().toLowerCase()),
          ),
      ),
    );
    const errors = Object.fromEntries((await ledger()).map((r) => [r.job_id, r.last_error]));
    expect(errors).toMatchObject({ c: 'upper', d: 'upper' });
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

  it('counts, row by row and in order, the rows each run of a statement changed', async () => {
    const insertNew = (t: Kysely<Database>, chunk: readonly ReturnType<typeof entry>[]) =>
      t
        .insertInto('expected_jobs')
        .values(chunk)
        .onConflict((oc) => oc.column('job_id').doNothing());
    const changed = await database.db
      .transaction()
      .execute((trx) => database.rowRunner.changes!(trx, [entry('g'), entry('a'), entry('h')], insertNew));
    // 'a' was stored by the first test: its row met the conflict and changed nothing.
    expect(changed).toEqual([1, 0, 1]);
    expect((await ledger()).map((r) => r.job_id)).toEqual(expect.arrayContaining(['a', 'g', 'h']));
    expect(
      await database.db.transaction().execute((trx) => database.rowRunner.changes!(trx, [], insertNew)),
    ).toEqual([]);
  });

  it('counts nothing (undefined, and runs nothing) for a statement with RETURNING or rows it cannot bind', async () => {
    const returning = await database.db
      .transaction()
      .execute((trx) =>
        database.rowRunner.changes!(trx, [entry('i')], (t, chunk) =>
          t.insertInto('expected_jobs').values(chunk).returning('job_id'),
        ),
      );
    const unbound = await database.db
      .transaction()
      .execute((trx) =>
        database.rowRunner.changes!(trx, [entry('j'), entry('k', { last_error: 'x' })], (t, chunk) =>
          t.insertInto('expected_jobs').values(chunk),
        ),
      );
    expect([returning, unbound]).toEqual([undefined, undefined]);
    const stored = (await ledger()).map((r) => r.job_id);
    expect(stored).not.toContain('i');
    expect(stored).not.toContain('j');
  });
});
