/**
 * --max-usd on a real SQLite file: prices of earlier runs are learned from launch_rows, and a job held
 * while RUNNING is settled at its real cost once its finished copy is stored (by serve or reconcile).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LaunchBudget, settleReservation } from '../../../src/launch/launch-budget.js';
import { type Reservation, SpendBudget } from '../../../src/launch/spend-budget.js';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { jobChangeEnvelope } from '../client/envelopes.js';

const JOB = '11111111-2222-4333-8444-555555555555';

describe('LaunchBudget', () => {
  let dir: string;
  let database: HooksyncDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hooksync-launch-budget-'));
    database = await openMigratedDatabase(join(dir, 'db.sqlite'));
  });
  afterEach(async () => {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('settles a RUNNING job at the cost its stored finished copy names, and makes room again', async () => {
    const budget = await LaunchBudget.open(database.db, 'job-change', {
      capUsd: 0.05,
      estimateUsd: 0.02,
      now: Date.now,
    });
    const held = [budget.budget.tryReserve('job-change'), budget.budget.tryReserve('job-change')];
    budget.hold(JOB, held[0]!);
    held[1]!.hold();
    const stopped = () => false;
    // 0.04 reserved: a third check (0.02) does not fit, and nothing is in flight: refused.
    expect(await budget.reserve({}, stopped)).toBeUndefined();
    expect(budget.describe()).toContain('reserved for 1 job still RUNNING');

    const envelope = jobChangeEnvelope(JOB);
    const output = envelope.output as { usage: Record<string, unknown> };
    envelope.output = { ...output, usage: { ...output.usage, total_usd: 0.005 } };
    const store = createJobStore({ database });
    await store.store({ envelopeText: JSON.stringify(envelope), envelope, source: 'finder' });
    await store.close();
    // The finished copy says $0.005: its 0.02 reservation becomes 0.005 spent, and a check fits again.
    const next = await budget.reserve({}, stopped);
    expect(next).toBeDefined();
    expect(budget.budget.spentUsd).toBeCloseTo(0.005);
  });

  it('learns the highest price of earlier runs from launch_rows (search: per person)', async () => {
    const at = new Date().toISOString();
    const row = (key: string, usd: string, count: number) => ({
      row_key: key,
      operation: 'search',
      request: '{}',
      state: 'launched' as const,
      prior_state: null,
      run_id: 'r',
      attempts: 1,
      source: 'f.csv',
      line: 2,
      created_at: at,
      updated_at: at,
      usd,
      result_count: count,
    });
    await database.db
      .insertInto('launch_rows')
      .values([row('a', '0.1', 10), row('b', '0.5', 25), row('c', '0', 0)])
      .execute();
    const budget = await LaunchBudget.open(database.db, 'search', { capUsd: 10, now: Date.now });
    expect(budget.budget.priceOf('search')).toBeCloseTo(0.02);
    // A page of 250 reserves 250 × $0.02.
    expect((await budget.reserve({ page_size: 250 }, () => false))?.usd).toBeCloseTo(5);
  });
});

describe('settleReservation', () => {
  const answer = (status: string, output: unknown) => ({
    job_id: JOB,
    status,
    response: { job: { status, output } },
  });
  const holder = () => {
    const held: string[] = [];
    return {
      held,
      hold: (jobId: string, reservation: Reservation) => {
        held.push(jobId);
        reservation.hold();
      },
    };
  };

  it('settles at the answer’s price, a search per person of its page', () => {
    const budget = new SpendBudget({ capUsd: 1, estimatesUsd: { search: 0.01, 'job-change': 0.05 } });
    settleReservation(
      budget.tryReserve('search', 10) as Reservation,
      answer('SUCCEEDED', { persons: [{}, {}, {}, {}], usage: { total_usd: 0.08 } }),
      'search',
      undefined,
    );
    expect(budget.spentUsd).toBeCloseTo(0.08);
    expect(budget.priceOf('search')).toBeCloseTo(0.02);
    const empty = budget.tryReserve('search', 10) as Reservation;
    settleReservation(empty, answer('SUCCEEDED', { usage: { total_usd: 0 } }), 'search', undefined);
    expect(budget.reservedUsd).toBe(0);
  });

  it('holds a RUNNING answer under its job id, and a finished one without a price at what it reserved', () => {
    const budget = new SpendBudget({ capUsd: 1, estimatesUsd: { 'job-change': 0.05 } });
    const running = holder();
    settleReservation(
      budget.tryReserve('job-change') as Reservation,
      answer('RUNNING', {}),
      'job-change',
      running,
    );
    expect(running.held).toEqual([JOB]);
    const finished = holder();
    for (const output of [{}, { usage: { total_usd: -1 } }]) {
      settleReservation(
        budget.tryReserve('job-change') as Reservation,
        answer('SUCCEEDED', output),
        'job-change',
        finished,
      );
    }
    expect(finished.held).toEqual([]);
    expect(budget.held).toBe(3);
    expect(budget.reservedUsd).toBeCloseTo(0.15);
    expect(budget.spentUsd).toBe(0);
  });
});
