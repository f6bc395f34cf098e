#!/usr/bin/env node
/**
 * The store worker's write of company reveals, alone (issue 42): the job store from dist/ (deferred
 * normalization, as serve's worker runs it) on a fresh SQLite file (WAL, synchronous=FULL), fed batches of
 * prepared reveals the way serve's request thread hands them over (prepareJobForWorker, then encodeJob in
 * the worker, which compresses them). Prints CPU per reveal (user+system, this process) per round; --statements also prints the
 * time spent in each SQL text (better-sqlite3 run/all), per reveal.
 *
 *   npm run build && node bench/store-write.mjs --batch 18 --reveals 20000 --rounds 5 [--dist DIR] [--statements]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    batch: { type: 'string', default: '18' },
    reveals: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    dist: { type: 'string', default: new URL('../dist/', import.meta.url).pathname },
    statements: { type: 'boolean', default: false },
    autocheckpoint: { type: 'string' },
  },
});
const dist = pathToFileURL(`${resolve(flags.dist)}/`);
const { createJobStore } = await import(new URL('storage/job-store/job-store.js', dist));
const { prepareJobForWorker } = await import(new URL('storage/job-store/prepare-job.js', dist));
const { encodeBytes } = await import(new URL('storage/envelope-codec.js', dist));
/** What the store worker does with a job it receives: compress its envelope (told its kind, where it can be). */
function encoded(job) {
  const { envelopeBytes, ...rest } = job;
  return { ...rest, envelopeZ: encodeBytes(envelopeBytes, job.kind) };
}
const { openMigratedDatabase } = await import(new URL('storage/open-migrated-database.js', dist));
const { parseJsonText } = await import(new URL('contract/json.js', dist));
const { computeBodyHash } = await import(new URL('contract/webhook-signature.js', dist));

const byStatement = new Map();
if (flags.statements) {
  const require = createRequire(import.meta.url);
  const Database = require('better-sqlite3');
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  for (const method of ['run', 'all']) {
    const original = proto[method];
    proto[method] = function timed(...args) {
      const started = process.cpuUsage();
      try {
        return original.apply(this, args);
      } finally {
        const key = this.source.slice(0, 110);
        const used = process.cpuUsage(started);
        byStatement.set(key, (byStatement.get(key) ?? 0n) + BigInt((used.user + used.system) * 1000));
      }
    };
  }
}

const fixture = readFileSync(
  new URL('../test/fixtures/envelopes/company-reveal.json', import.meta.url),
  'utf8',
);
const fixtureJobId = JSON.parse(fixture).input.task.job_id;
const [prefix, suffix] = fixture.split(fixtureJobId);

function prepared() {
  const text = prefix + randomUUID() + suffix;
  const bytes = Buffer.from(text, 'utf8');
  const job = prepareJobForWorker(
    {
      envelopeText: text,
      envelopeBytes: bytes,
      envelope: parseJsonText(text),
      source: 'webhook',
      jti: randomUUID(),
      tokenExpiresAt: new Date(Date.now() + 900_000),
      payloadHash: computeBodyHash(text),
    },
    Date.now(),
  );
  // What the worker receives: a structured clone.
  return structuredClone(job);
}

const batch = Number(flags.batch);
const reveals = Number(flags.reveals);
const perRound = [];
for (let round = 1; round <= Number(flags.rounds); round++) {
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-store-write-'));
  const database = await openMigratedDatabase(join(dir, 'bench.db'));
  if (flags.autocheckpoint !== undefined) {
    const { sql } = await import('kysely');
    await sql.raw(`pragma wal_autocheckpoint = ${Number(flags.autocheckpoint)}`).execute(database.db);
  }
  const store = createJobStore({ database, normalization: 'deferred', maxBatch: 64 });
  const pool = Array.from({ length: reveals }, prepared);
  byStatement.clear();
  const started = process.cpuUsage();
  const startedAt = performance.now();
  for (let i = 0; i < reveals; i += batch) {
    const results = await Promise.all(
      pool
        .slice(i, i + batch)
        .map((job) => store.submit({ type: 'job', job: encoded(job), atMs: Date.now() })),
    );
    if (results.some((result) => result.outcome !== 'stored')) throw new Error('not stored');
  }
  const cpu = process.cpuUsage(started);
  const wallMs = performance.now() - startedAt;
  await store.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
  const usPer = (cpu.user + cpu.system) / reveals;
  perRound.push(usPer);
  console.log(
    `round ${round}: ${usPer.toFixed(1)} µs CPU per reveal (user ${(cpu.user / reveals).toFixed(1)}, system ${(cpu.system / reveals).toFixed(1)}), ${((wallMs * 1000) / reveals).toFixed(1)} µs wall`,
  );
  if (flags.statements) {
    for (const [source, ns] of [...byStatement].sort((a, b) => Number(b[1] - a[1])))
      console.log(
        `  ${(Number(ns) / 1000 / reveals).toFixed(1).padStart(7)} µs  ${source.replace(/\s+/g, ' ')}`,
      );
  }
}
const sorted = [...perRound].sort((a, b) => a - b);
console.log(
  `median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs CPU per reveal (batch ${batch}, ${reveals} reveals)`,
);
