/**
 * Watches end to end, in-process, against the simulator, on SQLite or Postgres: the baseline and then only
 * changes (moved, left, came back; unknown erases nothing), rows added and removed between cycles and within
 * one, checks spread evenly over the period, the per-cycle budget, a 402, the outbox events of changes, and
 * two replicas sharing one watch.
 */
import { appendFile } from 'node:fs/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../../src/destinations/create-dispatcher.js';
import { parseDestinations } from '../../../src/destinations/load-destinations.js';
import {
  loadStatusSnapshot,
  type WatchesSummary,
} from '../../../src/server/status-page/load-status-snapshot.js';
import { renderWatches } from '../../../src/server/status-page/render-watches.js';
import { purgeOlderThan } from '../../../src/storage/purge-older-than.js';
import type { WatchDefinition } from '../../../src/watches/load-watches.js';
import { type CycleSummary, runCycle } from '../../../src/watches/run-cycle.js';
import { settlePendingChecks } from '../../../src/watches/settle-pending.js';
import { dueCycle, startWatches } from '../../../src/watches/start-watches.js';
import { registerWatchMetrics } from '../../../src/watches/watch-metrics.js';
import { getCycle, listChanges } from '../../../src/watches/watch-store.js';
import { type Dialect, type ReceiverHarness, startHarness } from '../../helpers/receiver-harness.js';
import {
  createWebhookSecret,
  startStandardWebhookConsumer,
} from '../../helpers/standard-webhook-consumer.js';
import { until } from '../../helpers/until.js';
import { championsWatch, contactsCsv } from '../../helpers/watches-env.js';
import { createWatchHarness, type WatchHarness } from './watch-harness.js';

const EMAILS = [
  'ann.lee@acme.com',
  'bo.chen@acme.com',
  'cy.diaz@acme.com',
  'di.evans@acme.com',
  'ed.fox@acme.com',
];
const ROWS = EMAILS.map((email, i) => [email, `003A${i}`] as const);

export function defineWatchesFileChecks(): void {
  describe('the watches file', () => {
    it('is checked whole', async () => {
      const h = await createWatchHarness('sqlite');
      try {
        await expect(
          h.watch({ name: 'w', launch: 'job-change', from: { file: 'x.csv' }, every: '5s' }),
        ).rejects.toThrow('watch "w", field every: "5s" is shorter than the least period, 10s');
        await expect(
          h.watch({ name: 'w', launch: 'job-change', from: { file: 'x.csv' }, map: { email: 'Email' } }),
        ).rejects.toThrow('watch "w", field map: "email" is not a request field of job-change');
        await expect(
          h.watch({ name: 'w', launch: 'search', from: { file: 'x.csv' }, set: { page_size: 'ten' } }),
        ).rejects.toThrow('watch "w", field set page_size: "ten" is not an integer');
        const search = await h.watch({
          name: 'w',
          launch: 'search',
          from: { file: 'x.csv' },
          set: { seniorities: ['Vice President', 'CXO'], experience_start_date_new_hire: '-30d' },
        });
        expect([...search.relativeDates]).toEqual([['experience_start_date_new_hire', 30]]);
      } finally {
        await h.close();
      }
    });
  });
}

export function defineWatchesSuite(dialect: Dialect): void {
  let h: WatchHarness;
  beforeEach(async () => {
    h = await createWatchHarness(dialect);
  }, 60_000);
  afterEach(async () => {
    await h?.close();
  });

  const contact = (i: number) => ({ professional_email: EMAILS[i]! });
  const cycle = async (watch: WatchDefinition, spread = true, webhookUrl?: string): Promise<CycleSummary> => {
    let next = await dueCycle(h.database.db, watch, h.clock.now());
    if ('waitMs' in next) {
      h.clock.advance(next.waitMs);
      next = await dueCycle(h.database.db, watch, h.clock.now());
    }
    if ('waitMs' in next) throw new Error('no cycle due');
    return runCycle(watch, next.cycle, h.deps({ webhookUrl }), {
      spread,
      signal: new AbortController().signal,
    });
  };
  const writeChampionsWatch = async (extra: Record<string, unknown> = {}) => {
    await h.write('contacts.csv', contactsCsv(ROWS));
    return h.watch(championsWatch(extra));
  };

  it('takes a baseline, then reports only changes; unknown erases nothing', async () => {
    const watch = await writeChampionsWatch();
    h.sim.setJobChange(contact(0), { job_change_status: 'no_change' });
    h.sim.setJobChange(contact(1), { job_change_status: 'no_change' });
    h.sim.setJobChange(contact(2), {
      job_change_status: 'moved',
      company_domain: 'a.com',
      company_name: 'A',
      title: 'VP',
    });
    h.sim.setJobChange(contact(3), { job_change_status: 'unknown' });
    h.sim.setJobChange(contact(4), { job_change_status: 'no_change' });
    const first = await cycle(watch);
    expect(first).toMatchObject({
      cycle: 1,
      rows: 5,
      checked: 5,
      baseline: 4,
      changes: 0,
      stopped: null,
      finished: true,
    });
    expect(first.usd).toBeCloseTo(0.1, 6);

    h.sim.setJobChange(contact(0), {
      job_change_status: 'moved',
      company_domain: 'b.com',
      company_name: 'B',
      title: 'CRO',
    });
    h.sim.setJobChange(contact(1), { job_change_status: 'left' });
    h.sim.setJobChange(contact(3), {
      job_change_status: 'moved',
      company_domain: 'c.com',
      company_name: 'C',
      title: 'AE',
    });
    const second = await cycle(watch);
    expect(second).toMatchObject({ cycle: 2, checked: 5, baseline: 1, changes: 2 });

    h.sim.setJobChange(contact(0), { job_change_status: 'unknown' });
    h.sim.setJobChange(contact(2), { job_change_status: 'no_change' });
    h.sim.setJobChange(contact(3), {
      job_change_status: 'moved',
      company_domain: 'c.com',
      company_name: 'C',
      title: 'Director',
    });
    const third = await cycle(watch);
    expect(third).toMatchObject({ cycle: 3, checked: 5, baseline: 0, changes: 2 });

    h.sim.setJobChange(contact(0), {
      job_change_status: 'moved',
      company_domain: 'b.com',
      company_name: 'B',
      title: 'CRO',
    });
    const fourth = await cycle(watch);
    expect(fourth).toMatchObject({ cycle: 4, checked: 5, changes: 0 });

    const changes = await listChanges(h.database.db, 'champions', undefined);
    const found = changes.map(
      (c) => [c.cycle, JSON.parse(c.custom_fields).sf_id as string, c.change] as const,
    );
    // Checks run a few at a time: order within a cycle is the answers' order.
    found.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
    expect(found).toEqual([
      [2, '003A0', 'moved'],
      [2, '003A1', 'left'],
      [3, '003A2', 'returned'],
      [3, '003A3', 'title'],
    ]);
    const moved = changes.find((c) => c.change === 'moved')!;
    expect(JSON.parse(moved.before!)).toMatchObject({ status: 'no_change' });
    expect(JSON.parse(moved.after)).toEqual({
      status: 'moved',
      company_domain: 'b.com',
      company_name: 'B',
      title: 'CRO',
    });
    // Every check is a job stored like any launch, with the carried id.
    const jobs = await h.database.db.selectFrom('jobs').select(['job_id', 'source']).execute();
    expect(jobs).toHaveLength(20);
    expect(new Set(changes.map((c) => c.job_id)).size).toBe(4);

    // /metrics and the status page read the database.
    const registry = new Registry();
    registerWatchMetrics(registry, h.database.db);
    const metrics = await registry.metrics();
    expect(metrics).toContain('hooksync_watch_rows_checked_total{watch="champions"} 20');
    expect(metrics).toContain('hooksync_watch_changes_total{watch="champions",change="moved"} 1');
    expect(metrics).toContain('hooksync_watch_changes_total{watch="champions",change="returned"} 1');
    expect(metrics).toMatch(/hooksync_watch_spent_usd_total\{watch="champions"\} 0\.4\b/);
    const snapshot = await loadStatusSnapshot({ db: h.database.db, now: new Date(h.clock.now()) });
    expect(snapshot.watches.ok).toBe(true);
    const page = String(renderWatches((snapshot.watches as { value: WatchesSummary }).value));
    expect(page).toContain('<code>champions</code>');
    expect(page).toContain('5 / 5');
    expect(page).toContain('003A3');

    // Retention: changes age out with everything else; a row's memory stays.
    const purged = await purgeOlderThan(h.database.db, { olderThanMs: 0, now: () => h.clock.now() + 1000 });
    expect(purged.deleted.watch_changes).toBe(4);
    expect(await listChanges(h.database.db, 'champions', undefined)).toHaveLength(0);
    expect(await h.database.db.selectFrom('watch_rows').select('row_key').execute()).toHaveLength(5);
  }, 60_000);

  it('reports the baseline when asked', async () => {
    const watch = await writeChampionsWatch({ report_baseline: true });
    for (let i = 0; i < 5; i += 1) h.sim.setJobChange(contact(i), { job_change_status: 'left' });
    const first = await cycle(watch);
    expect(first).toMatchObject({ baseline: 5, changes: 5 });
    expect(
      (await listChanges(h.database.db, 'champions', undefined)).every((c) => c.change === 'baseline'),
    ).toBe(true);
  }, 60_000);

  it('remembers the persons a search has seen, and resolves a relative date at each cycle', async () => {
    await h.write('accounts.csv', ['Domain,Record ID', 'acme.com,A1', 'globex.com,A2'].join('\n'));
    const watch = await h.watch({
      name: 'new-vps',
      launch: 'search',
      from: { file: 'accounts.csv' },
      map: { domain: 'Domain' },
      set: { page_size: 5, experience_start_date: '-3650d' },
      carry: { account_id: 'Record ID' },
      report_baseline: true,
    });
    const first = await cycle(watch);
    expect(first).toMatchObject({ checked: 2, baseline: 2, stopped: null });
    const persons = first.changes;
    expect(persons).toBeGreaterThan(0);
    const baseline = await listChanges(h.database.db, 'new-vps', undefined);
    expect(baseline.every((c) => c.change === 'baseline' && c.before === null)).toBe(true);
    expect(new Set(baseline.map((c) => JSON.parse(c.custom_fields).account_id))).toEqual(
      new Set(['A1', 'A2']),
    );
    // The date sent is the cycle's day minus 3650 days.
    const task = JSON.parse(h.sim.jobText(h.sim.jobs()[0]!.job_id)!).input.task;
    expect(task.experience_start_date).toBe(
      new Date(h.clock.now() - 3650 * 86_400_000).toISOString().slice(0, 10),
    );
    // A day later the date sent differs, yet the rows are the same rows: the same persons are no change.
    h.clock.advance(86_400_000);
    const second = await cycle(watch);
    expect(second).toMatchObject({ cycle: 2, checked: 2, baseline: 0, changes: 0 });
    expect(await h.database.db.selectFrom('watch_rows').select('row_key').execute()).toHaveLength(2);
  }, 60_000);

  it('spreads the checks evenly over the period', async () => {
    const watch = await writeChampionsWatch({ every: '50s' });
    const summary = await cycle(watch);
    expect(summary.checked).toBe(5);
    // Five rows over 50 s: the first at once, then one every 10 s (the clock moves only when slept on).
    expect(h.clock.sleeps).toEqual([10_000, 10_000, 10_000, 10_000]);
  }, 60_000);

  it('says once, with the numbers, that a cycle cannot finish in its period at the rate', async () => {
    const watch = await writeChampionsWatch({ every: '10s' });
    const next = await dueCycle(h.database.db, watch, h.clock.now());
    if (!('cycle' in next)) throw new Error('no cycle due');
    // One check a minute: five rows take five minutes, the period is ten seconds.
    const slow = h.deps({ rate: { requests: 1, perMs: 60_000 } });
    const interrupt = new AbortController();
    const first = await runCycle(watch, next.cycle, slow, {
      spread: true,
      signal: interrupt.signal,
      onProgress: () => interrupt.abort(),
    });
    expect(first.finished).toBe(false);
    // Taken up again (by this process or another), the cycle does not say it again.
    const again = await runCycle(watch, next.cycle, slow, {
      spread: true,
      signal: new AbortController().signal,
    });
    expect(again).toMatchObject({ checked: 5, stopped: null, finished: true });
    const said = h.logs.filter((line) => line.includes('longer than the'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(
      'watch \\"champions\\": 5 rows at 1 per 60s take 5 min, longer than the 0 min left of its period',
    );
    expect(JSON.parse(said[0]!)).toMatchObject({ rows: 5, rate: '1/60s', need_ms: 300_000, left_ms: 10_000 });
  }, 60_000);

  it('re-reads its source: rows added are checked in the running cycle, rows removed no longer', async () => {
    const watch = await writeChampionsWatch({ every: '50s' });
    let added = false;
    h.clock.onSleep = async () => {
      if (added) return;
      added = true;
      await appendFile(`${h.dir}/contacts.csv`, '\nfy.gray@acme.com,003A5');
    };
    const first = await cycle(watch);
    expect(first).toMatchObject({ rows: 6, checked: 6 });
    h.clock.onSleep = undefined;
    await h.write('contacts.csv', contactsCsv([...ROWS.slice(1), ['gil.ho@acme.com', '003A6']]));
    const second = await cycle(watch);
    expect(second).toMatchObject({ cycle: 2, rows: 5, checked: 5 });
    const rows = await h.database.db
      .selectFrom('watch_rows')
      .select(['custom_fields', 'checked_cycle'])
      .execute();
    const cycleOf = new Map(rows.map((r) => [JSON.parse(r.custom_fields).sf_id, r.checked_cycle]));
    expect(cycleOf.get('003A0')).toBe(1);
    expect(cycleOf.get('003A5')).toBe(1);
    expect(cycleOf.get('003A6')).toBe(2);
    expect(cycleOf.get('003A1')).toBe(2);
  }, 60_000);

  it('never exceeds max_usd_per_cycle, and goes on at the next cycle', async () => {
    // A job change check costs $0.02 on the simulator.
    const watch = await writeChampionsWatch({ max_usd_per_cycle: 0.05 });
    const first = await cycle(watch);
    expect(first).toMatchObject({ checked: 2, stopped: 'max_usd', finished: true });
    expect(first.usd).toBeLessThanOrEqual(0.05);
    expect(h.sim.jobs()).toHaveLength(2);
    expect(h.logs.join('')).toContain('watch \\"champions\\": max_usd_per_cycle 0.05 reached');
    const second = await cycle(watch);
    expect(second).toMatchObject({ cycle: 2, checked: 2, stopped: 'max_usd' });
  }, 60_000);

  it('pauses until the next cycle on a 402, naming the watch', async () => {
    await h.close();
    h = await createWatchHarness(dialect, { balanceUsd: 0.05 });
    const watch = await writeChampionsWatch();
    const first = await cycle(watch, false);
    expect(first).toMatchObject({ checked: 2, stopped: 'quota', finished: true });
    expect(h.logs.join('')).toContain('watch \\"champions\\": the account is out of quota');
  }, 60_000);

  it('reserves again, when it takes a cycle up, what its pending RUNNING checks may cost', async () => {
    await h.close();
    // Job Change answers RUNNING and does not finish during the test: no answer ever says a price.
    h = await createWatchHarness(dialect, { asyncMs: 600_000 });
    const watch = await writeChampionsWatch({ max_usd_per_cycle: 0.05 });
    const next = await dueCycle(h.database.db, watch, h.clock.now());
    if (!('cycle' in next)) throw new Error('no cycle due');
    // Never priced, the first check reserves the whole limit and goes alone; the run stops after it.
    const interrupt = new AbortController();
    const first = await runCycle(watch, next.cycle, h.deps(), {
      spread: false,
      signal: interrupt.signal,
      onProgress: () => interrupt.abort(),
    });
    expect(first).toMatchObject({ checked: 1, stopped: 'interrupted', finished: false });
    expect(h.sim.jobs()).toHaveLength(1);
    // Taken up again, the pending check holds the limit: nothing more is sent in this cycle.
    const again = await runCycle(watch, next.cycle, h.deps(), {
      spread: false,
      signal: new AbortController().signal,
    });
    expect(again).toMatchObject({ cycle: 1, checked: 1, stopped: 'max_usd', finished: true });
    expect(h.sim.jobs()).toHaveLength(1);
  }, 60_000);

  it('pauses until the next cycle when the key is refused, naming its variable', async () => {
    await h.close();
    h = await createWatchHarness(dialect, {}, 'not-a-key-of-this-account');
    const watch = await writeChampionsWatch();
    const first = await cycle(watch, false);
    expect(first).toMatchObject({ checked: 0, stopped: 'auth', finished: true });
    const warnings = h.logs.filter((line) => line.includes('the service refused the key'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('watch \\"champions\\": the service refused the key in HOOKSYNC_API_KEY');
    expect(h.sim.jobs()).toHaveLength(0);
    // The next cycle tries again.
    const second = await cycle(watch, false);
    expect(second).toMatchObject({ cycle: 2, stopped: 'auth' });
  }, 60_000);

  it('writes one outbox event per change for destinations that take watch_change', async () => {
    const watch = await writeChampionsWatch();
    await h.database.db
      .insertInto('destination_kinds')
      .values([
        { destination: 'movers', kind: 'watch_change' },
        { destination: 'everything', kind: '*' },
      ])
      .execute();
    for (let i = 0; i < 5; i += 1) h.sim.setJobChange(contact(i), { job_change_status: 'no_change' });
    await cycle(watch);
    h.sim.setJobChange(contact(4), { job_change_status: 'left' });
    await cycle(watch);
    const events = await h.database.db
      .selectFrom('outbox_events')
      .select(['destination', 'change_id', 'revision'])
      .where('change_id', 'is not', null)
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ destination: 'movers', revision: 0 });
  }, 60_000);

  it('hands each change to a webhook destination as one signed watch.change event', async () => {
    const watch = await writeChampionsWatch();
    const secret = createWebhookSecret();
    const consumer = await startStandardWebhookConsumer(secret);
    const destinations = await parseDestinations(
      {
        destinations: [
          { name: 'movers', type: 'webhook', url: consumer.url, secret, kinds: ['watch_change'] },
          { name: 'all-jobs', type: 'webhook', url: consumer.url, secret },
        ],
      },
      {},
      'test',
    );
    const dispatcher = createDispatcher({
      database: h.database,
      destinations,
      logger: pino({ level: 'silent' }),
      pollMs: 25,
      yieldUtilization: 2,
    });
    await dispatcher.sync();
    dispatcher.start();
    try {
      for (let i = 0; i < 5; i += 1) h.sim.setJobChange(contact(i), { job_change_status: 'no_change' });
      await cycle(watch);
      h.sim.setJobChange(contact(2), {
        job_change_status: 'moved',
        company_domain: 'z.com',
        company_name: 'Z',
        title: 'VP',
      });
      await cycle(watch);
      const changes = () => consumer.accepted().filter((e) => e.event.type === 'watch.change');
      await until(() => changes().length >= 1 && consumer.accepted().length >= 11, {
        message: 'the change and the eleven events are accepted',
      });
      expect(changes()).toHaveLength(1);
      expect(changes()[0]!.id).toMatch(/^watch_change_\d+$/);
      expect(changes()[0]!.event.data).toMatchObject({
        watch: 'champions',
        change: 'moved',
        custom_fields: { sf_id: '003A2' },
        before: { status: 'no_change' },
        after: { status: 'moved', company_domain: 'z.com', company_name: 'Z', title: 'VP' },
      });
      // The destination of every kind gets the ten checks' jobs, not the change.
      expect(consumer.accepted().filter((e) => e.event.type === 'job.stored')).toHaveLength(10);
    } finally {
      await dispatcher.stop();
      await consumer.close();
    }
  }, 60_000);

  describe('when the service answers RUNNING', () => {
    let receiver: ReceiverHarness;
    beforeEach(async () => {
      await h.close();
      // Job Change answers RUNNING and finishes 200 ms later; its callback reaches a real receiver that
      // stores the finished job in the watch's database.
      h = await createWatchHarness(dialect, { asyncMs: 200 });
      receiver = await startHarness(dialect, {
        databaseUrl: h.databaseUrl,
        env: { HOOKSYNC_JWKS_URL: h.sim.jwksUrl },
        receiver: { now: Date.now },
      });
    }, 60_000);
    afterEach(async () => {
      await receiver?.close();
    });
    const storedFinished = async (count: number): Promise<void> => {
      await h.sim.waitForDeliveries({ count, timeoutMs: 15_000 });
      await until(
        async () =>
          (
            await h.database.db
              .selectFrom('jobs')
              .select('job_id')
              .where('status', '=', 'SUCCEEDED')
              .execute()
          ).length >= count,
        { message: `${count} finished jobs are stored` },
      );
    };
    const settle = (watch: WatchDefinition) =>
      settlePendingChecks(h.database.db, watch, {
        nowIso: new Date(h.clock.now()).toISOString(),
        logger: pino({ level: 'silent' }),
      });

    it('observes the finished job once it is stored: the baseline, then the change, each once', async () => {
      const watch = await writeChampionsWatch();
      for (let i = 0; i < 5; i += 1) h.sim.setJobChange(contact(i), { job_change_status: 'no_change' });
      const webhookUrl = `${receiver.url}/webhooks`;
      const first = await cycle(watch, false, webhookUrl);
      // Each row is checked (not sent again this cycle); what it found is not known yet.
      expect(first).toMatchObject({ cycle: 1, checked: 5, stopped: null, finished: true });
      expect(h.sim.jobs().every((job) => job.status === 'RUNNING' || job.status === 'SUCCEEDED')).toBe(true);
      await storedFinished(5);
      const settled = await settle(watch);
      expect(settled.length + first.baseline).toBe(5);
      expect(await getCycle(h.database.db, 'champions', 1)).toMatchObject({
        checked: 5,
        baseline: 5,
        changes: 0,
      });
      expect(Number((await getCycle(h.database.db, 'champions', 1))!.usd_micros)).toBe(100_000);
      const states = await h.database.db
        .selectFrom('watch_rows')
        .select(['state', 'pending_job_id'])
        .execute();
      expect(states.every((row) => row.pending_job_id === null && row.state !== null)).toBe(true);

      h.sim.setJobChange(contact(2), {
        job_change_status: 'moved',
        company_domain: 'z.com',
        company_name: 'Z',
        title: 'VP',
      });
      const second = await cycle(watch, false, webhookUrl);
      expect(second).toMatchObject({ cycle: 2, checked: 5, baseline: 0 });
      await storedFinished(10);
      await settle(watch);
      // Settled already: a second reading changes nothing.
      expect(await settle(watch)).toEqual([]);
      expect(await getCycle(h.database.db, 'champions', 2)).toMatchObject({ checked: 5, changes: 1 });
      const changes = await listChanges(h.database.db, 'champions', undefined);
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ cycle: 2, change: 'moved' });
      expect(JSON.parse(changes[0]!.custom_fields)).toEqual({ sf_id: '003A2' });
      expect(JSON.parse(changes[0]!.after)).toMatchObject({ status: 'moved', company_domain: 'z.com' });
    }, 90_000);

    it("holds a RUNNING check's reservation until its finished job says what it cost", async () => {
      // A check costs $0.02: against $0.05, the first (never priced) goes alone; once its finished job
      // says $0.02, one more fits, and no third.
      const watch = await writeChampionsWatch({ max_usd_per_cycle: 0.05, every: '1d' });
      const summary = await cycle(watch, true, `${receiver.url}/webhooks`);
      expect(summary).toMatchObject({ cycle: 1, checked: 2, stopped: 'max_usd', finished: true });
      expect(summary.usd).toBeCloseTo(0.04, 6);
      expect(h.sim.jobs()).toHaveLength(2);
      expect(1000 - h.sim.balanceUsd()).toBeLessThanOrEqual(0.05);
      expect(h.logs.join('')).toContain('max_usd_per_cycle 0.05 reached ($0.04 spent)');
    }, 90_000);
  });

  it('hands a watch over to the other replica when the one running it stops', async () => {
    const watch = await writeChampionsWatch();
    const finishedCycles = async () =>
      (
        await h.database.db
          .selectFrom('watch_cycles')
          .select('cycle')
          .where('finished_at', 'is not', null)
          .execute()
      ).length;
    const finished = (count: number) =>
      until(async () => (await finishedCycles()) >= count, { message: `${count} cycles are finished` });
    const a = startWatches({ ...h.deps(), watches: [watch], leasePollMs: 20 });
    await finished(1);
    // b starts while a holds the lease: it waits, then takes the watch over when a stops.
    const b = startWatches({ ...h.deps(), watches: [watch], leasePollMs: 20 });
    await a.close();
    const handedOver = await finishedCycles();
    await finished(handedOver + 2);
    await b.close();
    const cycles = await h.database.db.selectFrom('watch_cycles').selectAll().orderBy('cycle').execute();
    for (const c of cycles.filter((row) => row.finished_at !== null)) expect(c.checked).toBe(5);
    expect(h.sim.jobs()).toHaveLength(cycles.reduce((sum, c) => sum + c.checked, 0));
  }, 60_000);

  it('runs a watch on one replica at a time: every row once per cycle', async () => {
    const watch = await writeChampionsWatch();
    const a = startWatches({ ...h.deps(), watches: [watch], leasePollMs: 20 });
    const b = startWatches({ ...h.deps(), watches: [watch], leasePollMs: 20 });
    await until(
      async () =>
        (
          await h.database.db
            .selectFrom('watch_cycles')
            .select('cycle')
            .where('finished_at', 'is not', null)
            .execute()
        ).length >= 3,
      { message: 'three cycles are finished' },
    );
    await Promise.all([a.close(), b.close()]);
    const cycles = await h.database.db.selectFrom('watch_cycles').selectAll().orderBy('cycle').execute();
    expect(cycles.filter((c) => c.finished_at !== null).length).toBeGreaterThanOrEqual(3);
    for (const c of cycles.filter((row) => row.finished_at !== null)) expect(c.checked).toBe(5);
    const checks = cycles.reduce((sum, c) => sum + c.checked, 0);
    expect(h.sim.jobs()).toHaveLength(checks);
  }, 60_000);
}
