#!/usr/bin/env node
/**
 * HubSpot destination benchmark (issue 18): records per second pushed to the HubSpot stand-in at its
 * Free/Starter limit (100 calls per rolling 10 s), as a share of the ideal (100 records per call × the
 * allowed calls: 1,000 records/s). A SQLite file gets N company reveals (distinct domains) through the job
 * store while no dispatcher runs; then, per round, a fresh stand-in (in a child process, a set-up portal)
 * and the dispatcher with the hubspot destination in overwrite or fill-empty mode, the events replayed and
 * the clock running until all are delivered. Modes alternate within each round. The window starts empty, so
 * the first 10 s are a burst, and calls go in bursts of a window's worth; the share of the ideal is the steady
 * rate: records delivered over the whole 10 s windows after the first, which needs runs longer than 20 s.
 *
 *   npm run build && node bench/hubspot.mjs                 # 20,000 records, 3 rounds (about 5 minutes)
 *   node bench/hubspot.mjs --events 12000 --rounds 1        # a short pass
 *   options: --rate 90/10s (the destination's default)  --limit 100 (the stand-in's calls per 10 s)
 *
 * Targets (issue 18): ≥ 0.8× the ideal in overwrite mode (one call per 100 records), ≥ 0.4× in fill-empty
 * mode (a read and a write per 100). Exits 1 when a median misses its target or a 429 was earned.
 * The receiver's throughput with a HubSpot destination: bench/receiver.mjs --variants hooksync,hooksync-hubspot.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadDispatchModules } from './lib/dispatch-modules.mjs';
import { startStandInChild } from './lib/hubspot-stand-in.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { pendingEvents, storeReveals } from './lib/outbox-jobs.mjs';
import { formatInteger, formatRatio, median } from './lib/stats.mjs';

const DIST = new URL('../dist/', import.meta.url);
const TARGETS = { overwrite: 0.8, 'fill-empty': 0.4 };
const WINDOW_MS = 10_000;

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '90/10s' },
    limit: { type: 'string', default: '100' },
  },
});
const events = Number(flags.events);
const rounds = Number(flags.rounds);
const limit = Number(flags.limit);
const idealPerSecond = (100 * limit) / 10;
const log = (line) => process.stderr.write(`${line}\n`);

const {
  openMigratedDatabase,
  parseDestinations,
  createDispatcher,
  replayEvents,
  openDispatchDatabase,
  syncDestinations,
} = await loadDispatchModules(DIST);

const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-hubspot-'));
const url = join(dir, 'bench.db');
const database = await openMigratedDatabase(url);
const results = { overwrite: [], 'fill-empty': [] };
try {
  const configure = (write, standIn) =>
    parseDestinations(
      {
        destinations: [
          {
            name: 'crm',
            type: 'hubspot',
            token: { env: 'HUBSPOT_TOKEN' },
            base_url: standIn?.url ?? 'http://127.0.0.1:1',
            write,
            rate: flags.rate,
          },
        ],
      },
      { HUBSPOT_TOKEN: standIn?.token ?? 'pat-bench' },
      'bench',
    );
  await syncDestinations(database.db, await configure('overwrite'), new Date().toISOString());
  const storeMs = await storeReveals(database, events, { distinctDomains: true });
  log(`${formatInteger(events)} company reveals stored in ${formatInteger(storeMs)} ms`);

  const pending = () => pendingEvents(database);
  for (let round = 0; round < rounds; round += 1) {
    const modes = round % 2 === 0 ? ['overwrite', 'fill-empty'] : ['fill-empty', 'overwrite'];
    for (const write of modes) {
      const standIn = await startStandInChild({ tenSecondly: limit });
      const dispatch = await openDispatchDatabase(url, database);
      try {
        // A fresh stand-in each round: the record ids the last round kept name records it does not hold.
        await database.db.deleteFrom('crm_record_ids').execute();
        await replayEvents(database.db, 'crm', {}, new Date().toISOString());
        const destinations = await configure(write, standIn);
        const dispatcher = createDispatcher({ database: dispatch.database, destinations });
        await dispatcher.sync();
        const started = performance.now();
        dispatcher.start();
        // The window starts empty, so the first 10 s are a burst, and calls come in bursts of a window's
        // worth: the steady rate is what was delivered over the whole windows after the first.
        const leftAt = [];
        for (;;) {
          const left = await pending();
          const windows = Math.floor((performance.now() - started) / WINDOW_MS);
          while (leftAt.length < windows) leftAt.push(left);
          if (left === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const elapsedMs = performance.now() - started;
        const whole = leftAt.length - 1;
        const steadyPerSecond =
          whole < 1 ? Number.NaN : ((leftAt[0] - leftAt[whole]) * 1000) / (whole * WINDOW_MS);
        await dispatcher.stop();
        const summary = await standIn.summary();
        const perSecond = (events * 1000) / elapsedMs;
        const failed = Number(
          (
            await database.db
              .selectFrom('outbox_events')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('status', '!=', 'delivered')
              .executeTakeFirstOrThrow()
          ).n,
        );
        results[write].push({ perSecond, steadyPerSecond, elapsedMs, ...summary, failed });
        log(
          `round ${round + 1}/${rounds} ${write.padEnd(10)} steady ${formatInteger(steadyPerSecond)} records/s ` +
            `(${formatRatio(steadyPerSecond / idealPerSecond)} of ideal), whole run ${formatInteger(perSecond)} records/s, ` +
            `${formatInteger(elapsedMs)} ms; ` +
            `${summary.calls} calls, ${summary.rateLimited} × 429, ${summary.companies} companies, ${failed} not delivered`,
        );
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
  `Command: \`node bench/hubspot.mjs --events ${events} --rounds ${rounds} --rate ${flags.rate} --limit ${limit}\``,
  ...ownMachineLines(),
  '',
  `Ideal: 100 records per call × ${limit} calls per 10 s = ${formatInteger(idealPerSecond)} records/s (the stand-in's Free/Starter limit). Destination rate ${flags.rate}.`,
  '',
  '| mode | steady records/s (median) | share of ideal (median) | spread (min–max share) | target | whole run records/s | calls per round | 429s | not delivered |',
  '|---|---|---|---|---|---|---|---|---|',
];
for (const [write, runs] of Object.entries(results)) {
  const shares = runs.map((run) => run.steadyPerSecond / idealPerSecond);
  const share = median(shares);
  const ok =
    share >= TARGETS[write] &&
    shares.every(Number.isFinite) &&
    runs.every((run) => run.rateLimited === 0 && run.failed === 0);
  if (!ok) missed = true;
  lines.push(
    `| ${write} | ${formatInteger(median(runs.map((run) => run.steadyPerSecond)))} | ${formatRatio(share)} | ` +
      `${formatRatio(Math.min(...shares))}–${formatRatio(Math.max(...shares))} | ≥ ${TARGETS[write]}× ${ok ? 'met' : 'MISSED'} | ` +
      `${formatInteger(median(runs.map((run) => run.perSecond)))} | ` +
      `${runs.map((run) => run.calls).join(', ')} | ${runs.map((run) => run.rateLimited).join(', ')} | ${runs.map((run) => run.failed).join(', ')} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
process.exitCode = missed ? 1 : 0;
