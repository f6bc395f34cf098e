#!/usr/bin/env node
// Destinations benchmark (issue 12): dispatch throughput from the outbox to a local webhook consumer.
// A SQLite file gets N stored jobs (company reveals, through the job store, so each writes its outbox event
// in its own transaction) while no dispatcher runs; then the dispatcher starts and the clock runs until
// every event is delivered. The consumer is a bare node:http server in a child process, answering 204.
// Reported: events/s, and the dispatcher process's RSS while it works through the backlog (bounded: it
// claims only as many events as it has free slots).
//
//   npm run build && node bench/destinations.mjs                   # 20,000 events, concurrency 16
//   node bench/destinations.mjs --events 100000 --concurrency 16
//   --dist DIR: a build to measure instead of this tree's dist/ (a reference build of main, same run)
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ownMachineLines } from './lib/machine.mjs';
import { pendingEvents, storeReveals } from './lib/outbox-jobs.mjs';
import { formatInteger } from './lib/stats.mjs';

let DIST = new URL('../dist/', import.meta.url);

if (process.argv[2] === '--consumer') {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
} else {
  await main();
}

async function main() {
  const { values: flags } = parseArgs({
    options: {
      events: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '16' },
      dist: { type: 'string' },
    },
  });
  if (flags.dist !== undefined) DIST = pathToFileURL(`${resolve(flags.dist)}/`);
  const events = Number(flags.events);
  const concurrency = Number(flags.concurrency);
  const log = (line) => process.stderr.write(`${line}\n`);
  const consumer = fork(fileURLToPath(import.meta.url), ['--consumer'], { stdio: ['ignore', 2, 2, 'ipc'] });
  const port = await new Promise((resolve) => consumer.once('message', (m) => resolve(m.port)));
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-dest-'));
  try {
    const { openMigratedDatabase } = await import(new URL('storage/open-migrated-database.js', DIST).href);
    const { parseDestinations } = await import(new URL('destinations/load-destinations.js', DIST).href);
    const { createDispatcher } = await import(new URL('destinations/create-dispatcher.js', DIST).href);
    const database = await openMigratedDatabase(join(dir, 'bench.db'));
    const destinations = await parseDestinations(
      {
        destinations: [
          {
            name: 'bench',
            type: 'webhook',
            url: `http://127.0.0.1:${port}/hooks`,
            secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
            concurrency,
          },
        ],
      },
      {},
      'bench',
    );
    const { openDispatchDatabase } = await import(
      new URL('destinations/open-dispatch-database.js', DIST).href
    );
    const dispatch = await openDispatchDatabase(join(dir, 'bench.db'), database);
    // Nothing is being received here: the dispatcher runs as serve's does between bursts.
    const dispatcher = createDispatcher({ database: dispatch.database, destinations, receiving: () => 0 });
    await dispatcher.sync();

    const storeMs = await storeReveals(database, events, { dist: DIST });
    log(`${formatInteger(events)} jobs stored with their events in ${formatInteger(storeMs)} ms`);

    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 50);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    dispatcher.start();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if ((await pendingEvents(database)) === 0) break;
    }
    const elapsedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMsPerEvent = (cpu.user + cpu.system) / 1000 / events;
    clearInterval(sampler);
    await dispatcher.stop();
    await dispatch.database.close();
    const delivered = Number(
      (
        await database.db
          .selectFrom('outbox_events')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('status', '=', 'delivered')
          .executeTakeFirstOrThrow()
      ).n,
    );
    await database.close();
    const rate = (delivered * 1000) / elapsedMs;
    // The baseline's body: the same envelope the stored jobs carry (bench/lib/outbox-jobs.mjs stores it).
    const template = readFileSync(
      new URL('../test/fixtures/envelopes/company-reveal.json', import.meta.url),
      'utf8',
    );
    const baseline = await rawPosts(`http://127.0.0.1:${port}/hooks`, events, concurrency, template);
    log(
      `baseline: ${formatInteger(baseline.rate)} POSTs/s, ${baseline.cpuMsPerPost.toFixed(2)} ms CPU per POST`,
    );
    log(
      `${formatInteger(delivered)} delivered in ${formatInteger(elapsedMs)} ms: ${formatInteger(rate)} events/s`,
    );
    const out = [
      `### Destinations: dispatch from the outbox to a local webhook consumer`,
      '',
      `Command: \`node bench/destinations.mjs --events ${events} --concurrency ${concurrency}${flags.dist === undefined ? '' : ` --dist ${flags.dist}`}\` — SQLite, one webhook ` +
        'destination (Standard Webhooks signing, envelope embedded verbatim), consumer a bare node:http server in ' +
        'its own process answering 204.',
      '',
      ...ownMachineLines(),
      '',
      '| sender | events | concurrency | delivered | seconds | events/s | sender CPU ms/event | RSS before → peak while dispatching |',
      '|---|---:|---:|---:|---:|---:|---:|---|',
      `| hooksync dispatcher (claim, sign, POST, record) | ${formatInteger(events)} | ${concurrency} | ${formatInteger(delivered)} | ${(elapsedMs / 1000).toFixed(1)} | ` +
        `${formatInteger(rate)} | ${cpuMsPerEvent.toFixed(2)} | ${Math.round(rssBefore / 2 ** 20)} → ${Math.round(peakRss / 2 ** 20)} MB |`,
      `| baseline: bare fetch POSTs of the same envelope, no database, no signature | ${formatInteger(events)} | ${concurrency} | ` +
        `${formatInteger(events)} | ${(baseline.elapsedMs / 1000).toFixed(1)} | ${formatInteger(baseline.rate)} | ` +
        `${baseline.cpuMsPerPost.toFixed(2)} | — |`,
      '',
      `Dispatch / baseline: ${(rate / baseline.rate).toFixed(2)}× (same run).`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    consumer.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The same number of POSTs with the same body, `concurrency` at a time, straight from fetch. */
async function rawPosts(url, count, concurrency, body) {
  let next = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        await response.arrayBuffer();
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    elapsedMs,
    rate: (count * 1000) / elapsedMs,
    cpuMsPerPost: (cpu.user + cpu.system) / 1000 / count,
  };
}
