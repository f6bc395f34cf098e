#!/usr/bin/env node
/**
 * Pipedrive destination benchmark (issue 26): the tokens spent per record pushed, and records per second at
 * a Lite API token's burst limit, against the Pipedrive stand-in of the tests (test/helpers/pipedrive/,
 * transpiled into a temporary folder; it enforces 20 requests and 10 searches per rolling 2 s and charges
 * each call its tokens). A SQLite file gets N company reveals (distinct domains) through the job store while
 * no dispatcher runs; then three passes of the dispatcher with the pipedrive destination over the same
 * stand-in: `new` (nothing in Pipedrive: a search and a create each), `seen, fill-empty` and `seen,
 * overwrite` (the events replayed: the key → id map gives the id, a GET reads the record, nothing changed
 * is sent), and `seen, changed` (overwrite after every organization's Website was changed in Pipedrive: a GET
 * and a PATCH each). The stand-in runs in this process: the passes are bound by the burst limit, not by CPU.
 *
 *   npm run build && node bench/pipedrive.mjs                # 200 records (about 3 minutes)
 *   options: --events 200  --rate 18/2s (the destination's default)  --burst 20 (the stand-in's, Lite)
 *
 * Targets (issue 26): ≤ 27 tokens per new record, ≤ 7 per record seen before. The ideal records/s is the
 * stand-in's limit divided by the calls a record needs (new: a search and a create, and search's own 10 per
 * 2 s; seen: one GET; changed: a GET and a PATCH). Exits 1 when a target is missed, a 429 was earned or an event was not delivered.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadDispatchModules } from './lib/dispatch-modules.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { pendingEvents, storeReveals } from './lib/outbox-jobs.mjs';
import { formatInteger, formatRatio } from './lib/stats.mjs';

const DIST = new URL('../dist/', import.meta.url);
const SOURCE = fileURLToPath(new URL('../test/helpers/pipedrive/', import.meta.url));
const TARGETS = { new: 27, seen: 7 };

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '200' },
    rate: { type: 'string', default: '18/2s' },
    burst: { type: 'string', default: '20' },
  },
});
const events = Number(flags.events);
const burst = Number(flags.burst);
const log = (line) => process.stderr.write(`${line}\n`);

const {
  openMigratedDatabase,
  parseDestinations,
  createDispatcher,
  replayEvents,
  openDispatchDatabase,
  syncDestinations,
} = await loadDispatchModules(DIST);

/** The stand-in's TypeScript files as modules in `root`; its entry's URL. */
async function transpiledStandIn(root) {
  const ts = (await import('typescript')).default;
  const out = join(root, 'pipedrive');
  await mkdir(out, { recursive: true });
  for (const file of await readdir(SOURCE)) {
    if (!file.endsWith('.ts')) continue;
    const { outputText } = ts.transpileModule(await readFile(join(SOURCE, file), 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    });
    await writeFile(join(out, file.replace(/\.ts$/, '.js')), outputText);
  }
  return pathToFileURL(join(out, 'stand-in.js')).href;
}

const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-pipedrive-'));
const url = join(dir, 'bench.db');
const database = await openMigratedDatabase(url);
const { startPipedriveStandIn } = await import(await transpiledStandIn(dir));
const { addTemplateFields } = await import(pathToFileURL(join(dir, 'pipedrive', 'store.js')).href);
const pd = await startPipedriveStandIn({ burst });
addTemplateFields(pd.store);
const passes = [];
try {
  const configure = (write) =>
    parseDestinations(
      {
        destinations: [
          {
            name: 'pd',
            type: 'pipedrive',
            token: { env: 'PIPEDRIVE_TOKEN' },
            base_url: pd.url,
            write,
            rate: flags.rate,
          },
        ],
      },
      { PIPEDRIVE_TOKEN: pd.token },
      'bench',
    );
  await syncDestinations(database.db, await configure('fill-empty'), new Date().toISOString());
  const storeMs = await storeReveals(database, events, { distinctDomains: true });
  log(`${formatInteger(events)} company reveals stored in ${formatInteger(storeMs)} ms`);

  for (const [name, write, ideal] of [
    // New: a search and a create a record; search's own limit (10 per 2 s) allows 5 a second too.
    ['new', 'fill-empty', Math.min(burst / 2 / 2, 10 / 2)],
    ['seen, fill-empty', 'fill-empty', burst / 2],
    ['seen, overwrite', 'overwrite', burst / 2],
    // Seen, and a user changed a mapped field since: a GET and a PATCH a record.
    ['seen, changed', 'overwrite', burst / 2 / 2],
  ]) {
    if (name === 'seen, changed')
      for (const organization of pd.store.live('organizations'))
        organization.website = 'https://typed.example';
    if (passes.length > 0) {
      pd.store.settleIndex();
      await replayEvents(database.db, 'pd', {}, new Date().toISOString());
    }
    const dispatch = await openDispatchDatabase(url, database);
    const callsBefore = pd.calls.length;
    const spentBefore = pd.spent();
    try {
      const dispatcher = createDispatcher({
        database: dispatch.database,
        destinations: await configure(write),
      });
      await dispatcher.sync();
      const started = performance.now();
      dispatcher.start();
      while ((await pendingEvents(database)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const elapsedMs = performance.now() - started;
      await dispatcher.stop();
      const calls = pd.calls.slice(callsBefore);
      const fieldTokens = calls
        .filter((call) => call.path.includes('Fields'))
        .reduce((n, c) => n + c.tokens, 0);
      const tokens = pd.spent() - spentBefore;
      const failed = Number(
        (
          await database.db
            .selectFrom('outbox_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('status', '!=', 'delivered')
            .executeTakeFirstOrThrow()
        ).n,
      );
      const pass = {
        name,
        perRecord: (tokens - fieldTokens) / events,
        fieldTokens,
        perSecond: (events * 1000) / elapsedMs,
        ideal,
        calls: calls.length,
        rateLimited: calls.filter((call) => call.status === 429).length,
        organizations: pd.store.live('organizations').length,
        failed,
        elapsedMs,
      };
      passes.push(pass);
      log(
        `${name.padEnd(17)} ${pass.perRecord.toFixed(2)} tokens/record (+${fieldTokens} for the field lists), ` +
          `${pass.perSecond.toFixed(2)} records/s (${formatRatio(pass.perSecond / ideal)} of ${ideal}), ` +
          `${pass.calls} calls, ${pass.rateLimited} × 429, ${pass.organizations} organizations, ${failed} not delivered`,
      );
    } finally {
      if (dispatch.owned) await dispatch.database.close();
    }
  }
} finally {
  await pd.close();
  await database.close();
  await rm(dir, { recursive: true, force: true });
}

let missed = false;
const lines = [
  `Command: \`node bench/pipedrive.mjs --events ${events} --rate ${flags.rate} --burst ${burst}\``,
  ...ownMachineLines(),
  '',
  `The stand-in at a Lite API token's limits: ${burst} requests and 10 searches per rolling 2 s. Destination rate ${flags.rate}.`,
  '',
  '| pass | tokens per record (field lists aside) | target | field lists, tokens | records/s | ideal records/s | share of ideal | calls | 429s | organizations held | not delivered |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const pass of passes) {
  const target = pass.name === 'new' ? TARGETS.new : TARGETS.seen;
  const ok =
    pass.perRecord <= target && pass.rateLimited === 0 && pass.failed === 0 && pass.organizations === events;
  if (!ok) missed = true;
  lines.push(
    `| ${pass.name} | ${pass.perRecord.toFixed(2)} | ≤ ${target} ${ok ? 'met' : 'MISSED'} | ${pass.fieldTokens} | ` +
      `${pass.perSecond.toFixed(2)} | ${pass.ideal} | ${formatRatio(pass.perSecond / pass.ideal)} | ${pass.calls} | ` +
      `${pass.rateLimited} | ${pass.organizations} | ${pass.failed} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
process.exitCode = missed ? 1 : 0;
