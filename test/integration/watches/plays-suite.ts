/**
 * Plays end to end, in-process, against the simulator, on SQLite or Postgres: a departure starts one
 * contact search at the company left, paid from the cycle's budget; the persons found are changes of kind
 * `successor` naming whom they replace; later cycles, a RUNNING answer and a second replica never search
 * the same departure again.
 */

import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnswerBudget } from '../../../src/client/answer-budget.js';
import { parseDestinations } from '../../../src/destinations/load-destinations.js';
import { totalUsdOf } from '../../../src/launch/launch-budget.js';
import {
  loadStatusSnapshot,
  type WatchesSummary,
} from '../../../src/server/status-page/load-status-snapshot.js';
import { renderWatches } from '../../../src/server/status-page/render-watches.js';
import type { WatchDefinition } from '../../../src/watches/load-watches.js';
import { parseWatches } from '../../../src/watches/load-watches.js';
import { ABANDONED_SEARCH } from '../../../src/watches/plays/abandon-successor-searches.js';
import { playsOfChanges } from '../../../src/watches/plays/play-store.js';
import { describePlays, summarizePlays } from '../../../src/watches/plays/plays-summary.js';
import { settleSuccessorSearches } from '../../../src/watches/plays/run-successors.js';
import { reclaimTaskPlays, runTaskPlays } from '../../../src/watches/plays/run-tasks.js';
import { type CycleSummary, runCycle } from '../../../src/watches/run-cycle.js';
import { settlePendingChecks } from '../../../src/watches/settle-pending.js';
import { dueCycle } from '../../../src/watches/start-watches.js';
import { getCycle, listChanges } from '../../../src/watches/watch-store.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { pdActivities } from '../../helpers/pipedrive/activities.js';
import { startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { type Dialect, type ReceiverHarness, startHarness } from '../../helpers/receiver-harness.js';
import { startSalesforceStandIn } from '../../helpers/salesforce/stand-in.js';
import { until } from '../../helpers/until.js';
import { writeWatchesEnv } from '../../helpers/watches-env.js';
import { salesforceEntry, salesforceSecrets } from '../destinations/salesforce-world.js';
import { createWatchHarness, type WatchHarness } from './watch-harness.js';

const CSV = 'Email,Id,Domain\nann.lee@acme.com,003A0,acme.com\nbo.chen@acme.com,003A1,acme.com\n';
const ANN = { professional_email: 'ann.lee@acme.com' };
const BO = { professional_email: 'bo.chen@acme.com' };

export function definePlaysSuite(dialect: Dialect): void {
  let h: WatchHarness;
  beforeEach(async () => {
    h = await createWatchHarness(dialect);
  }, 60_000);
  afterEach(async () => {
    await h?.close();
  });

  const cycle = async (watch: WatchDefinition, webhookUrl?: string): Promise<CycleSummary> => {
    let next = await dueCycle(h.database.db, watch, h.clock.now());
    if ('waitMs' in next) {
      h.clock.advance(next.waitMs);
      next = await dueCycle(h.database.db, watch, h.clock.now());
    }
    if ('waitMs' in next) throw new Error('no cycle due');
    return runCycle(watch, next.cycle, h.deps({ webhookUrl }), {
      spread: webhookUrl === undefined,
      signal: new AbortController().signal,
    });
  };
  const championsWatch = async (plays: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    await h.write('contacts.csv', CSV);
    return h.watch({
      name: 'champions',
      launch: 'job-change',
      from: { file: 'contacts.csv' },
      map: { professional_email: 'Email', company_domain: 'Domain' },
      carry: { sf_id: 'Id' },
      plays,
      ...extra,
    });
  };
  const searches = () => h.sim.jobs().filter((job) => job.kind === 'search_contact');
  const jobUsd = (jobId: string) => totalUsdOf(JSON.parse(h.sim.jobText(jobId)!)) as number;

  it('a departure starts one search at the company left, paid from the cycle, and never again', async () => {
    const watch = await championsWatch(
      { successor: { on: ['left', 'moved'], max_per_change: 2 } },
      { max_usd_per_cycle: 5 },
    );
    h.sim.setJobChange(ANN, { job_change_status: 'no_change' });
    h.sim.setJobChange(BO, { job_change_status: 'no_change' });
    expect(await cycle(watch)).toMatchObject({ cycle: 1, checked: 2, baseline: 2, changes: 0 });
    expect(searches()).toHaveLength(0);

    h.sim.setJobChange(ANN, { job_change_status: 'left' });
    const second = await cycle(watch);
    expect(searches()).toHaveLength(1);
    const search = searches()[0]!;
    const task = JSON.parse(h.sim.jobText(search.job_id)!).input.task;
    expect(task).toMatchObject({ domain: 'acme.com', page_size: 3 });

    const changes = await listChanges(h.database.db, 'champions', undefined);
    const left = changes.find((c) => c.change === 'left')!;
    const successors = changes.filter((c) => c.change === 'successor');
    expect(successors.length).toBeGreaterThan(0);
    expect(successors.length).toBeLessThanOrEqual(2);
    for (const successor of successors) {
      expect(successor.row_key).toBe(left.row_key);
      expect(successor.job_id).toBe(search.job_id);
      expect(successor.cycle).toBe(2);
      const after = JSON.parse(successor.after);
      expect(after).toMatchObject({
        company_domain: 'acme.com',
        replaces: { key: left.row_key, custom_fields: { sf_id: '003A0' } },
      });
      expect(typeof after.id).toBe('string');
    }
    expect(second).toMatchObject({ cycle: 2, checked: 2, changes: 1 + successors.length });
    // The budget paid for the search: two checks and the search, to the micro-dollar.
    const checks = h.sim
      .jobs()
      .filter((job) => job.kind === 'job_change')
      .slice(2);
    const expected = checks.reduce((sum, job) => sum + jobUsd(job.job_id), 0) + jobUsd(search.job_id);
    expect(second.usd).toBeCloseTo(expected, 6);
    const plays = await h.database.db.selectFrom('watch_plays').selectAll().execute();
    expect(plays).toHaveLength(1);
    expect(plays[0]).toMatchObject({ play: 'successor', state: 'done', job_id: search.job_id, cycle: 2 });

    // Later cycles, still left, a second run of the same cycle: no second search for that departure.
    const third = await cycle(watch);
    expect(third).toMatchObject({ cycle: 3, changes: 0 });
    expect(searches()).toHaveLength(1);

    // A second departure (Bo moves) is a search of its own.
    h.sim.setJobChange(BO, {
      job_change_status: 'moved',
      company_domain: 'other.io',
      company_name: 'Other',
      title: 'CRO',
    });
    await cycle(watch);
    expect(searches()).toHaveLength(2);
    const latest = JSON.parse(h.sim.jobText(searches()[1]!.job_id)!).input.task;
    // The company LEFT, not the one joined.
    expect(latest.domain).toBe('acme.com');

    // watches run --dry-run's plays, and the status page's: what each change started.
    const summary = await summarizePlays(h.database.db, watch);
    expect(summary).toEqual([
      expect.objectContaining({ play: 'successor', pending: 0, running: 0, done: 2, persons_per_search: 3 }),
    ]);
    expect(summary[0]!.usd_per_search_seen).toBeGreaterThan(0);
    expect(describePlays(summary)[0]).toContain('successor (on left, moved): 0 searches would start');
    const snapshot = await loadStatusSnapshot({ db: h.database.db, now: new Date(h.clock.now()) });
    const page = String(renderWatches((snapshot.watches as { value: WatchesSummary }).value));
    expect(page).toContain('successor search: done');
    expect(page).toContain('>successor<');
  });

  it('no search when the budget has no room for it: it waits for the next cycle', async () => {
    const watch = await championsWatch({ successor: { on: ['left'] } }, { max_usd_per_cycle: 0.04 });
    h.sim.setJobChange(ANN, { job_change_status: 'no_change' });
    h.sim.setJobChange(BO, { job_change_status: 'no_change' });
    await cycle(watch);
    h.sim.setJobChange(ANN, { job_change_status: 'left' });
    const second = await cycle(watch);
    // Two checks at $0.02 fill the budget: the search waits, the limit holds.
    expect(second.usd).toBeLessThanOrEqual(0.04 + 1e-9);
    expect(searches()).toHaveLength(0);
    const play = await h.database.db.selectFrom('watch_plays').selectAll().executeTakeFirstOrThrow();
    expect(play.state).toBe('pending');
  });

  it('a search whose run died mid-call is reported abandoned once its claim lapses, and never searched again', async () => {
    // Budget for the checks only: the departure's search waits, pending, for a later cycle.
    const tight = await championsWatch({ successor: { on: ['left'] } }, { max_usd_per_cycle: 0.04 });
    h.sim.setJobChange(ANN, { job_change_status: 'no_change' });
    h.sim.setJobChange(BO, { job_change_status: 'no_change' });
    await cycle(tight);
    h.sim.setJobChange(ANN, { job_change_status: 'left' });
    await cycle(tight);
    // What a run killed between the claim and the answer leaves behind.
    await h.database.db.updateTable('watch_plays').set({ state: 'claimed', cycle: 2 }).execute();
    const watch = await championsWatch({ successor: { on: ['left'] } }, { max_usd_per_cycle: 5 });
    const third = await cycle(watch);
    expect(third.cycle).toBe(3);
    expect(searches()).toHaveLength(0);
    const play = await h.database.db.selectFrom('watch_plays').selectAll().executeTakeFirstOrThrow();
    expect(play).toMatchObject({ state: 'failed', detail: ABANDONED_SEARCH, job_id: null });
    // watches changes and the status page say so, from the same rows.
    const left = (await listChanges(h.database.db, 'champions', undefined)).find((c) => c.change === 'left')!;
    expect((await playsOfChanges(h.database.db, [left.id])).get(String(left.id))).toEqual([
      expect.objectContaining({ play: 'successor', state: 'failed', detail: ABANDONED_SEARCH }),
    ]);
    const snapshot = await loadStatusSnapshot({ db: h.database.db, now: new Date(h.clock.now()) });
    const page = String(renderWatches((snapshot.watches as { value: WatchesSummary }).value));
    expect(page).toContain('successor search: failed (abandoned: the process that made the search stopped');
    expect((await summarizePlays(h.database.db, watch))[0]).toMatchObject({ running: 0, failed: 1 });
    // `watches changes` reads the same watch from a watches file.
    const env = await writeWatchesEnv(
      h.sim,
      h.dir,
      [
        {
          name: 'champions',
          launch: 'job-change',
          every: '10s',
          from: { file: 'contacts.csv' },
          map: { professional_email: 'Email', company_domain: 'Domain' },
          plays: { successor: { on: ['left'] } },
        },
      ],
      { HOOKSYNC_DATABASE_URL: h.databaseUrl },
    );
    const shown = await runCliCaptured(['watches', 'changes', 'champions'], { env });
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain(`    successor search: failed (${ABANDONED_SEARCH})`);
    // Later cycles start nothing for it.
    await cycle(watch);
    expect(searches()).toHaveLength(0);
  });

  it('a mover yields exactly one HubSpot task for the owner, associated with the contact, due as configured; after a replay and a run that died mid-call too', async () => {
    const hs = await startHubSpotStandIn();
    try {
      hs.defineProperty('contacts', { name: 'hubspot_owner_id', type: 'string', fieldType: 'text' });
      const ann = hs.seed('contacts', { email: 'ann.lee@acme.com', hubspot_owner_id: '41629779' });
      const bo = hs.seed('contacts', { email: 'bo.chen@acme.com' });
      const watch = await taskWatch(
        { type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hs.url },
        { HUBSPOT_TOKEN: hs.token },
        'hs_object_id',
        [ann, bo],
        { on: ['moved', 'left'], subject: '{{name}} moved to {{company}}: reach out', due: '3d' },
      );
      h.sim.setJobChange(ANN, { job_change_status: 'no_change' });
      h.sim.setJobChange(BO, { job_change_status: 'no_change' });
      await cycle(watch);
      expect(hs.tasks()).toHaveLength(0);

      h.sim.setJobChange(ANN, {
        job_change_status: 'moved',
        company_domain: 'other.io',
        company_name: 'Other',
        title: 'CRO',
      });
      h.sim.setJobChange(BO, { job_change_status: 'left' });
      await cycle(watch);
      const moved = (await listChanges(h.database.db, 'champions', undefined)).find(
        (c) => c.change === 'moved',
      )!;
      const tasks = hs.tasks();
      expect(tasks).toHaveLength(1);
      expect(tasks[0]!.properties).toMatchObject({
        hubspot_owner_id: '41629779',
        hs_task_subject: 'ann.lee@acme.com moved to Other: reach out',
        hs_timestamp: new Date(Date.parse(moved.detected_at) + 3 * 86_400_000).toISOString(),
      });
      expect(tasks[0]!.properties.hs_task_body).toContain('moved from acme.com to Other as CRO');
      expect(tasks[0]!.associations).toEqual([{ toId: ann, typeId: 204 }]);
      const plays = await h.database.db.selectFrom('watch_plays').selectAll().orderBy('state').execute();
      // Bo's contact has no owner: no task, said why.
      expect(plays.map((p) => [p.state, p.task_id, p.detail])).toEqual([
        [
          'done',
          tasks[0]!.id,
          `for owner 41629779, due ${new Date(Date.parse(moved.detected_at) + 3 * 86_400_000).toISOString().slice(0, 10)}`,
        ],
        ['failed', null, `contact ${bo} has no owner`],
      ]);

      const snapshot = await loadStatusSnapshot({ db: h.database.db, now: new Date(h.clock.now()) });
      const page = String(renderWatches((snapshot.watches as { value: WatchesSummary }).value));
      expect(page).toContain(`task ${tasks[0]!.id} in crm: done`);

      // The same answer again (a replay of the cycle) starts nothing.
      await cycle(watch);
      expect(hs.tasks()).toHaveLength(1);

      // A run that died after HubSpot made the task, before it was recorded: found, not made again.
      await h.database.db
        .updateTable('watch_plays')
        .set({ state: 'claimed', task_id: null })
        .where('id', '=', Number(plays[0]!.id))
        .execute();
      const nowIso = new Date(h.clock.now()).toISOString();
      await reclaimTaskPlays(h.database.db, 'champions', nowIso);
      const logger = pino({ level: 'silent' });
      const budget = new AnswerBudget();
      await runTaskPlays(
        { watch, db: h.database.db, logger, now: h.clock.now, answers: { budget, maxBytes: undefined } },
        new AbortController().signal,
      );
      expect(hs.tasks()).toHaveLength(1);
      // The play's calls read their answers through serve's budget, as the destinations' do.
      expect(budget.peak).toBeGreaterThan(0);
      expect(budget.inUse).toBe(0);
      const again = await h.database.db
        .selectFrom('watch_plays')
        .selectAll()
        .where('id', '=', Number(plays[0]!.id))
        .executeTakeFirstOrThrow();
      expect(again).toMatchObject({ state: 'done', task_id: tasks[0]!.id, attempts: 2 });
    } finally {
      await hs.close();
    }
  });

  /** A watch of the two contacts carrying `ids` under `carry`, with a task play (`task`) to destination `crm`. */
  const taskWatch = async (
    entry: Record<string, unknown>,
    env: Record<string, string>,
    carry: string,
    ids: readonly [string, string],
    task: Record<string, unknown> = { on: ['moved'], subject: 'Call {{name}} at {{company}}', due: '2d' },
  ) => {
    await h.write(
      'contacts.csv',
      `Email,Id,Domain\nann.lee@acme.com,${ids[0]},acme.com\nbo.chen@acme.com,${ids[1]},acme.com\n`,
    );
    const destinations = await parseDestinations({ destinations: [{ name: 'crm', ...entry }] }, env, 'test');
    return (
      await parseWatches(
        {
          watches: [
            {
              name: 'champions',
              launch: 'job-change',
              every: '10s',
              from: { file: 'contacts.csv' },
              map: { professional_email: 'Email', company_domain: 'Domain' },
              carry: { [carry]: 'Id' },
              plays: { task: { destination: 'crm', ...task } },
            },
          ],
        },
        { label: 'test', baseDir: h.dir, nowMs: h.clock.now(), destinations },
      )
    )[0]!;
  };
  const moveAnn = async (watch: WatchDefinition) => {
    h.sim.setJobChange(ANN, { job_change_status: 'no_change' });
    h.sim.setJobChange(BO, { job_change_status: 'no_change' });
    await cycle(watch);
    h.sim.setJobChange(ANN, {
      job_change_status: 'moved',
      company_domain: 'other.io',
      company_name: 'Other',
      title: 'CRO',
    });
    await cycle(watch);
    const moved = (await listChanges(h.database.db, 'champions', undefined)).find(
      (c) => c.change === 'moved',
    )!;
    return new Date(Date.parse(moved.detected_at) + 2 * 86_400_000).toISOString().slice(0, 10);
  };
  const runTasksAgain = async (watch: WatchDefinition) => {
    h.clock.advance(3_600_000);
    await runTaskPlays(
      { watch, db: h.database.db, logger: pino({ level: 'silent' }), now: h.clock.now },
      new AbortController().signal,
    );
  };

  it("Salesforce: a mover yields exactly one Task for the Contact's owner (WhoId, OwnerId, ActivityDate), also after a run that died", async () => {
    const sf = await startSalesforceStandIn({ setUp: true });
    try {
      sf.defineField('Contact', { name: 'OwnerId', label: 'Owner ID', type: 'reference', length: 18 });
      const owner = '005000000000001AAA';
      const ann = sf.seed('Contact', { LastName: 'Lee', Email: 'ann.lee@acme.com', OwnerId: owner });
      const bo = sf.seed('Contact', { LastName: 'Chen', Email: 'bo.chen@acme.com', OwnerId: owner });
      const watch = await taskWatch(salesforceEntry(sf), salesforceSecrets(sf), 'sf_id', [ann, bo]);
      const due = await moveAnn(watch);
      expect(sf.tasks()).toHaveLength(1);
      // A run that died after the create, before it recorded the id: the next finds the Task by SOQL.
      await h.database.db.updateTable('watch_plays').set({ state: 'claimed', task_id: null }).execute();
      await reclaimTaskPlays(h.database.db, 'champions', new Date(h.clock.now()).toISOString());
      await runTasksAgain(watch);
      const tasks = sf.tasks();
      expect(tasks).toHaveLength(1);
      expect(tasks[0]!.values).toMatchObject({
        WhoId: ann,
        OwnerId: owner,
        ActivityDate: due,
        Subject: 'Call ann.lee@acme.com at Other',
        Status: 'Not Started',
        Priority: 'Normal',
      });
      const play = await h.database.db.selectFrom('watch_plays').selectAll().executeTakeFirstOrThrow();
      expect(play).toMatchObject({ state: 'done', task_id: tasks[0]!.Id });
      await cycle(watch);
      expect(sf.tasks()).toHaveLength(1);
    } finally {
      await sf.close();
    }
  });

  it("Pipedrive: a mover yields exactly one v2 activity of type task for the person's owner, also after a lost answer", async () => {
    const pd = await startPipedriveStandIn();
    try {
      const ann = pd.store.insert('persons', { name: 'Ann Lee', owner_id: 7 });
      const bo = pd.store.insert('persons', { name: 'Bo Chen', owner_id: 7 });
      const watch = await taskWatch(
        { type: 'pipedrive', token: { env: 'PIPEDRIVE_TOKEN' }, base_url: pd.url },
        { PIPEDRIVE_TOKEN: pd.token },
        'pd_id',
        [String(ann.id), String(bo.id)],
      );
      pd.loseAnswerToNext({ method: 'POST', path: /\/api\/v2\/activities$/ }, 'drop');
      const due = await moveAnn(watch);
      expect(pdActivities(pd.store)).toHaveLength(1);
      await runTasksAgain(watch);
      const activities = pdActivities(pd.store);
      expect(activities).toHaveLength(1);
      expect(activities[0]).toMatchObject({
        type: 'task',
        owner_id: 7,
        person_id: ann.id,
        due_date: due,
        subject: 'Call ann.lee@acme.com at Other',
        done: false,
      });
      const play = await h.database.db.selectFrom('watch_plays').selectAll().executeTakeFirstOrThrow();
      expect(play).toMatchObject({ state: 'done', task_id: String(activities[0]!.id), attempts: 2 });
    } finally {
      await pd.close();
    }
  });

  describe('with RUNNING answers', () => {
    let receiver: ReceiverHarness;
    beforeEach(async () => {
      await h.close();
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
    const stored = async (count: number) => {
      await until(
        async () =>
          (
            await h.database.db
              .selectFrom('jobs')
              .select('job_id')
              .where('status', '=', 'SUCCEEDED')
              .execute()
          ).length >= count,
        { message: `${count} finished jobs are stored`, timeout: 20_000 },
      );
    };
    const settle = (watch: WatchDefinition) =>
      settlePendingChecks(h.database.db, watch, {
        nowIso: new Date(h.clock.now()).toISOString(),
        logger: pino({ level: 'silent' }),
      });

    it('a RUNNING search is settled once its finished job is stored, and is counted in the cycle that paid', async () => {
      const watch = await championsWatch({ successor: { on: ['left'] } });
      const webhookUrl = `${receiver.url}/webhooks`;
      h.sim.setJobChange(ANN, { job_change_status: 'no_change' });
      h.sim.setJobChange(BO, { job_change_status: 'no_change' });
      await cycle(watch, webhookUrl);
      await stored(2);
      await settle(watch);
      h.sim.setJobChange(ANN, { job_change_status: 'left' });
      await cycle(watch, webhookUrl);
      await stored(4);
      await settle(watch);
      // The departure was known after its cycle ended: the next cycle's run sends its search.
      const third = await cycle(watch, webhookUrl);
      expect(searches()).toHaveLength(1);
      await stored(7);
      await settle(watch);
      const nowIso = new Date(h.clock.now()).toISOString();
      const logger = pino({ level: 'silent' });
      const settled = [
        ...(await settleSuccessorSearches(h.database.db, watch, { nowIso, logger })),
        ...(await settleSuccessorSearches(h.database.db, watch, { nowIso, logger })),
      ];
      const play = await h.database.db.selectFrom('watch_plays').selectAll().executeTakeFirstOrThrow();
      expect(play).toMatchObject({ state: 'done', job_id: searches()[0]!.job_id, cycle: third.cycle });
      // Settled once (a second reading finds nothing, or the cycle's own run settled it first).
      expect(settled.length).toBeLessThanOrEqual(1);
      const search = jobUsd(searches()[0]!.job_id);
      const paid = await getCycle(h.database.db, 'champions', third.cycle);
      const checks = h.sim
        .jobs()
        .filter((job) => job.kind === 'job_change')
        .slice(4);
      const expected = checks.reduce((sum, job) => sum + jobUsd(job.job_id), 0) + search;
      expect(Number(paid!.usd_micros) / 1e6).toBeCloseTo(expected, 6);
      const successors = (await listChanges(h.database.db, 'champions', undefined)).filter(
        (c) => c.change === 'successor',
      );
      expect(successors.length).toBeGreaterThan(0);
      expect(successors.every((c) => c.cycle === third.cycle)).toBe(true);
      await cycle(watch, webhookUrl);
      expect(searches()).toHaveLength(1);
    }, 90_000);
  });

  it('the plays are checked with the watches file', async () => {
    await expect(championsWatch({ successor: { on: ['title'] } })).rejects.toThrow(
      'watch "champions", field plays.successor.on[0]',
    );
    await expect(championsWatch({ successor: { set: { domain: 'x.com' } } })).rejects.toThrow(
      'field plays.successor.set.domain: the play sets it itself',
    );
    await expect(championsWatch({ successor: { set: { seniorities: ['Boss'] } } })).rejects.toThrow(
      'field plays.successor.set.seniorities[0]: ',
    );
    await expect(
      championsWatch({ task: { destination: 'crm', on: ['moved'], subject: 'x' } }),
    ).rejects.toThrow(
      'field plays.task.destination: a task goes to a CRM destination: give the destinations file',
    );
    await expect(
      championsWatch({ task: { destination: 'crm', on: ['moved'], subject: 'Hi {{nom}}' } }),
    ).rejects.toThrow('field plays.task.subject: {{nom}} is not a placeholder');
  });
}
