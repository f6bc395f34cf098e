#!/usr/bin/env node
/**
 * CRM calls of one watch cycle whose source is a HubSpot portal (`"from": { "hubspot": … }`), against the
 * HubSpot stand-in in a child process (bench/lib/hubspot-stand-in.mjs) and the simulator in this process.
 * The portal holds 10,000 contacts (--quick: 2,000), one in 10 under one of 1,000 companies. Every contact
 * but the last 100 is recorded as checked in the cycle beforehand (a cycle taken up near its end), so that
 * the cycle buys 100 checks and walks the whole portal: its CRM calls are its readings of the source. The
 * figure: stand-in calls made by the cycle, and by one reading alone (the setup's), so that calls / reading =
 * how many times the cycle read its source; twice, each in a database of its own: run at once (as `watches
 * run` does) and spread over its period on a fake clock (as `serve` runs it).
 *
 * Usage: npm run build && node bench/watch-cycle-calls.mjs [--quick] [--contacts 10000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { parseDestinations } from '../dist/destinations/load-destinations.js';
import { createSimulator } from '../dist/simulator/create-simulator.js';
import { createJobStore } from '../dist/storage/job-store/job-store.js';
import { openMigratedDatabase } from '../dist/storage/open-migrated-database.js';
import { parseWatches } from '../dist/watches/load-watches.js';
import { cycleToRunNow } from '../dist/watches/start-watches.js';
import { planForCycle } from '../dist/watches/watch-plan.js';
import { watchedRows } from '../dist/watches/watched-rows.js';
import { runBenchCycle, steppingClock } from './lib/bench-cycle.mjs';
import { startStandInChild } from './lib/hubspot-stand-in.mjs';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, contacts: { type: 'string' } },
});
const contacts = Number(values.contacts ?? (values.quick ? 2_000 : 10_000));
const BUY = 100;
const silent = pino({ level: 'silent' });

/** Every contact but the last `BUY` recorded as checked in `cycle` by an earlier run: one reading of the source. */
async function seedChecked(db, watch, cycle) {
  const plan = planForCycle(watch, Date.parse(cycle.started_at), undefined);
  const nowIso = new Date().toISOString();
  let batch = [];
  let seen = 0;
  for await (const row of watchedRows(watch, plan, db)) {
    if (!('key' in row)) continue;
    seen += 1;
    if (seen > contacts - BUY) continue;
    batch.push({
      watch: watch.name,
      row_key: row.key,
      custom_fields: '{}',
      state: '{"status":"no_change","company_domain":null,"company_name":null,"title":null}',
      checked_cycle: cycle.cycle,
      checked_at: nowIso,
      job_id: null,
      first_seen_at: nowIso,
    });
    if (batch.length >= 100) {
      await db.insertInto('watch_rows').values(batch).execute();
      batch = [];
    }
  }
  if (batch.length > 0) await db.insertInto('watch_rows').values(batch).execute();
  // The earlier run that checked them read the source (the count a cycle taken up knows).
  await db
    .updateTable('watch_cycles')
    .set({ rows: seen, checked: contacts - BUY })
    .where('watch', '=', watch.name)
    .where('cycle', '=', cycle.cycle)
    .execute();
}

const dir = mkdtempSync(join(tmpdir(), 'hooksync-bench-cycle-calls-'));
const standIn = await startStandInChild({ tenSecondly: 100_000_000, daily: 100_000_000 });
const sim = await createSimulator({ seed: 5, rate: { perInterval: 100_000, intervalSeconds: 1 } });

/** One cycle in a database of its own; `spread`: over its period on a fake clock. */
async function measure(destinations, spread) {
  const database = await openMigratedDatabase(join(dir, `cycle-${spread}.db`));
  const store = createJobStore({ database, logger: silent });
  try {
    const [watch] = parseWatches(
      {
        watches: [
          { name: 'bench', launch: 'job-change', from: { hubspot: { destination: 'crm' } }, every: '30d' },
        ],
      },
      { label: 'bench', baseDir: dir, nowMs: Date.now(), destinations },
    );
    const clock = steppingClock();
    const cycle = await cycleToRunNow(database.db, watch, clock.now());
    const atStart = (await standIn.summary()).calls;
    await seedChecked(database.db, watch, cycle);
    const afterReading = (await standIn.summary()).calls;
    const { summary, seconds } = await runBenchCycle({
      watch,
      cycle,
      db: database.db,
      store,
      simUrl: sim.url,
      apiKey: sim.apiKey,
      logger: silent,
      clock,
      spread,
    });
    const end = await standIn.summary();
    const reading = afterReading - atStart;
    const calls = end.calls - afterReading;
    const how = spread ? 'spread over its period (`serve`)' : 'at once (`watches run`)';
    return `| ${contacts.toLocaleString('en')} | ${how} | ${summary.checked - (contacts - BUY)} | ${reading} | ${calls} | ${(calls / reading).toFixed(2)} | ${seconds.toFixed(1)} | ${end.rateLimited} |`;
  } finally {
    await store.close();
    await database.close();
  }
}

try {
  await standIn.seedContacts({ from: 0, count: contacts, companies: 1_000, associateEvery: 10 });
  const destinations = await parseDestinations(
    {
      destinations: [
        {
          name: 'crm',
          type: 'hubspot',
          token: { env: 'BENCH_HS_TOKEN' },
          base_url: standIn.url,
          rate: '10000/1s',
        },
      ],
    },
    { BENCH_HS_TOKEN: standIn.token },
    'bench destinations',
  );
  const rows = [await measure(destinations, false), await measure(destinations, true)];
  process.stdout.write(
    [
      `Command: \`node bench/watch-cycle-calls.mjs${values.quick ? ' --quick' : ''}\``,
      '',
      '| portal (contacts) | cycle run | checks bought | CRM calls of one reading | CRM calls of the cycle | readings per cycle | cycle seconds | 429s |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
} finally {
  await sim.close();
  await standIn.stop();
  rmSync(dir, { recursive: true, force: true });
}
