#!/usr/bin/env node
/**
 * Salesforce destination benchmark (issue 25 §9): records per second written to the Salesforce stand-in with
 * one sObject Collections call in flight, as a share of the ideal (200 records per call at the stand-in's
 * configured latency: 200 × 1,000 / latency records/s). A SQLite file gets N company reveals (distinct
 * domains) through the job store while no dispatcher runs; then, per round, a fresh stand-in (in a child
 * process, a set-up org whose every answer leaves `--latency` ms after its request arrived, its own work
 * included) and the dispatcher with the salesforce
 * destination in overwrite or fill-empty mode, the events replayed and timed until all are delivered. Modes
 * alternate within each round. `bulk_threshold` is set to N so that the run stays on collections (Bulk's
 * own pace is the org's, not a call's). The whole run counts: the grant and describe are in it.
 * Each round also logs where its time went, from the stand-in's clock: start → first call (claim, the
 * first segment's rows), first call → first write (grant, describe), the writes (their time in the stand-in,
 * and the gaps between an answer leaving and the next write arriving), last answer → all delivered (the
 * last outcomes recorded, and this script's 20 ms polling).
 *
 *   npm run build && node bench/salesforce.mjs               # 5,000 records, latency 100 ms, 3 rounds
 *   options: --events 5000 (at most 5,000: bulk_threshold's limit)  --latency 100  --rounds 3
 *            --dist DIR (a build to measure instead of this tree's dist/, e.g. a reference build of main)
 *
 * Targets (issue 25): ≥ 0.8× the ideal in overwrite mode (one call per 200 records), ≥ 0.4× in fill-empty
 * mode (SOQL reads by key first, in chunks that keep the URI under 2,000 characters, a segment's reads going
 * while the previous segment is written). Exits 1 when a median misses its target or an event is not
 * delivered.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadDispatchModules } from './lib/dispatch-modules.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { pendingEvents, storeReveals } from './lib/outbox-jobs.mjs';
import { startSalesforceChild } from './lib/salesforce-stand-in.mjs';
import { formatInteger, formatRatio, median } from './lib/stats.mjs';

const TARGETS = { overwrite: 0.8, 'fill-empty': 0.4 };

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    latency: { type: 'string', default: '100' },
    dist: { type: 'string' },
  },
});
const DIST =
  flags.dist === undefined ? new URL('../dist/', import.meta.url) : pathToFileURL(`${resolve(flags.dist)}/`);
const events = Number(flags.events);
const rounds = Number(flags.rounds);
const latencyMs = Number(flags.latency);
if (!(events >= 1 && events <= 5_000))
  throw new Error('--events must be 1 to 5,000 (bulk_threshold at most)');
/**
 * Where a round's time went, from the stand-in's clock (ms): start → first call, the grant and describes,
 * first write → last write's answer, the gaps between one write's answer and the next write's arrival,
 * the last answer → all delivered.
 */
function timelineOf(timeline, startedAt, endedAt) {
  const writes = timeline.filter((call) => call.path.includes('/composite/sobjects'));
  if (writes.length === 0) return 'no writes';
  const first = timeline[0];
  const gaps = writes.slice(1).map((call, at) => call.at - writes[at].answeredAt);
  const spans = writes.map((call) => call.answeredAt - call.at);
  const sum = (values) => values.reduce((a, b) => a + b, 0);
  return (
    `start→first call ${first.at - startedAt} ms, first call→first write ${writes[0].at - first.at} ms ` +
    `(${timeline.indexOf(writes[0])} calls before it), writes ${writes.at(-1).answeredAt - writes[0].at} ms ` +
    `(in the stand-in ${sum(spans)} ms, gaps ${sum(gaps)} ms: median ${median(gaps)} max ${Math.max(...gaps)}), ` +
    `last answer→delivered ${Math.round(endedAt - writes.at(-1).answeredAt)} ms`
  );
}

const idealPerSecond = (200 * 1000) / latencyMs;
const log = (line) => process.stderr.write(`${line}\n`);

const {
  openMigratedDatabase,
  parseDestinations,
  createDispatcher,
  replayEvents,
  openDispatchDatabase,
  syncDestinations,
} = await loadDispatchModules(DIST);

const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-salesforce-'));
const url = join(dir, 'bench.db');
const database = await openMigratedDatabase(url);
const results = { overwrite: [], 'fill-empty': [] };
try {
  const configure = (write, standIn) =>
    parseDestinations(
      {
        destinations: [
          {
            name: 'sf',
            type: 'salesforce',
            login_url: standIn?.url ?? 'http://127.0.0.1:1',
            auth: {
              grant: 'client_credentials',
              client_id: { env: 'SF_CLIENT_ID' },
              client_secret: { env: 'SF_CLIENT_SECRET' },
            },
            write,
            bulk_threshold: events,
          },
        ],
      },
      { SF_CLIENT_ID: standIn?.clientId ?? 'id', SF_CLIENT_SECRET: standIn?.clientSecret ?? 'secret' },
      'bench',
    );
  await syncDestinations(database.db, await configure('overwrite'), new Date().toISOString());
  const storeMs = await storeReveals(database, events, { distinctDomains: true, dist: DIST });
  log(`${formatInteger(events)} company reveals stored in ${formatInteger(storeMs)} ms`);

  for (let round = 0; round < rounds; round += 1) {
    const modes = round % 2 === 0 ? ['overwrite', 'fill-empty'] : ['fill-empty', 'overwrite'];
    for (const write of modes) {
      const standIn = await startSalesforceChild({ setUp: true, dailyLimit: 10_000_000, latencyMs });
      const dispatch = await openDispatchDatabase(url, database);
      try {
        // A fresh stand-in each round: the record ids the last round kept name records it does not hold.
        await database.db.deleteFrom('crm_record_ids').execute();
        await replayEvents(database.db, 'sf', {}, new Date().toISOString());
        const destinations = await configure(write, standIn);
        const dispatcher = createDispatcher({ database: dispatch.database, destinations });
        await dispatcher.sync();
        const started = performance.now();
        const startedAt = Date.now();
        dispatcher.start();
        while ((await pendingEvents(database)) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
        const elapsedMs = performance.now() - started;
        await dispatcher.stop();
        const summary = await standIn.summary();
        const failed = Number(
          (
            await database.db
              .selectFrom('outbox_events')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('status', '!=', 'delivered')
              .executeTakeFirstOrThrow()
          ).n,
        );
        const perSecond = (events * 1000) / elapsedMs;
        const ended = startedAt + elapsedMs;
        const phases = timelineOf(summary.timeline, startedAt, ended);
        results[write].push({ perSecond, elapsedMs, ...summary, failed });
        log(
          `round ${round + 1}/${rounds} ${write.padEnd(10)} ${formatInteger(perSecond)} records/s ` +
            `(${formatRatio(perSecond / idealPerSecond)} of ideal), ${formatInteger(elapsedMs)} ms; ` +
            `${summary.calls} calls (${summary.writes} writes, ${summary.reads} reads), ${summary.bulkJobs} Bulk jobs, ` +
            `${summary.records} Accounts, ${failed} not delivered`,
        );
        log(`  ${phases}`);
      } finally {
        if (dispatch.owned) await dispatch.database.close();
        await standIn.stop();
      }
    }
  }
} finally {
  await database.close();
  await rm(dir, { recursive: true, force: true });
}

let missed = false;
const lines = [
  `Command: \`node bench/salesforce.mjs --events ${events} --rounds ${rounds} --latency ${latencyMs}${flags.dist === undefined ? '' : ` --dist ${flags.dist}`}\``,
  ...ownMachineLines(),
  '',
  `Ideal: 200 records per collections call, one call in flight, ${latencyMs} ms a call = ${formatInteger(idealPerSecond)} records/s.`,
  '',
  '| mode | records/s (median) | share of ideal (median) | spread (min–max share) | target | calls per round (writes, reads) | not delivered |',
  '|---|---|---|---|---|---|---|',
];
for (const [write, runs] of Object.entries(results)) {
  const shares = runs.map((run) => run.perSecond / idealPerSecond);
  const share = median(shares);
  const ok = share >= TARGETS[write] && runs.every((run) => run.failed === 0 && run.bulkJobs === 0);
  if (!ok) missed = true;
  lines.push(
    `| ${write} | ${formatInteger(median(runs.map((run) => run.perSecond)))} | ${formatRatio(share)} | ` +
      `${formatRatio(Math.min(...shares))}–${formatRatio(Math.max(...shares))} | ≥ ${TARGETS[write]}× ${ok ? 'met' : 'MISSED'} | ` +
      `${runs.map((run) => `${run.calls} (${run.writes}, ${run.reads})`).join('; ')} | ${runs.map((run) => run.failed).join(', ')} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
process.exitCode = missed ? 1 : 0;
