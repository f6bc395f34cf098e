#!/usr/bin/env node
/**
 * What writing a page's persons costs, by the indexes on `persons` (issue 42): the store's own row writer
 * (writeNormalizedRows from dist/, SQLite file, WAL, synchronous=FULL) writes the rows of realistic
 * 250-person pages, 10 pages a transaction as the normalizer does under load, into a database that already
 * holds 100,000 persons; the CPU of the timed pages (process.cpuUsage) divided by the pages. Index sets:
 *   migrated   the schema as migrated (persons_linkedin_url_idx partial since migration 030)
 *   full-url   persons_linkedin_url_idx over every person again (as before migration 030)
 *   no-url     no linkedin_url index at all
 *   none       no secondary index on persons (the primary key only)
 *
 *   npm run build && node bench/persons-write.mjs [--pages 320] [--batch 10] [--runs 2]
 */
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { writeNormalizedRows } from '../dist/storage/job-store/write-normalized-rows.js';
import { normalizeEnvelope } from '../dist/storage/normalize-envelope.js';
import { openMigratedDatabase } from '../dist/storage/open-migrated-database.js';
import { ownMachineLines } from './lib/machine.mjs';
import { createRandom, realisticSearchPage } from './lib/realistic-payloads.mjs';

const { values: flags } = parseArgs({
  options: {
    pages: { type: 'string', default: '320' },
    batch: { type: 'string', default: '10' },
    runs: { type: 'string', default: '2' },
    prefill: { type: 'string', default: '400' },
  },
});
const pages = Number(flags.pages);
const batch = Number(flags.batch);
const prefill = Number(flags.prefill);

const VARIANTS = {
  migrated: [],
  'full-url': [
    'DROP INDEX persons_linkedin_url_idx',
    'CREATE INDEX persons_linkedin_url_idx ON persons (linkedin_url)',
  ],
  'no-url': ['DROP INDEX persons_linkedin_url_idx'],
  none: [
    'DROP INDEX persons_linkedin_url_idx',
    'DROP INDEX persons_person_id_idx',
    'DROP INDEX persons_received_at_idx',
  ],
};

// Sixty distinct pages' rows; each written page gets its own job_id, person ids and LinkedIn URLs.
const random = createRandom(7);
const templates = Array.from({ length: 60 }, (_, i) => {
  const jobId = `template-${i}`;
  return normalizeEnvelope(JSON.parse(realisticSearchPage(random, jobId)), 'search_contact', jobId, '');
});
let written = 0;
function nextJob(storedAt) {
  const n = written++;
  const rows = templates[n % templates.length];
  const jobId = `job-${n}`;
  return {
    jobId,
    rows: {
      ...rows,
      persons: rows.persons.map((row) => ({
        ...row,
        job_id: jobId,
        person_id: row.person_id === null ? null : `${row.person_id}-${n}`,
        linkedin_url: row.linkedin_url === null ? null : `${row.linkedin_url}-${n}`,
      })),
      personTexts: rows.personTexts.map((row) => ({ ...row, job_id: jobId })),
    },
    storedAt,
    replace: false,
  };
}

async function write(database, count) {
  for (let done = 0; done < count; done += batch) {
    const storedAt = new Date().toISOString();
    const jobs = Array.from({ length: Math.min(batch, count - done) }, () => nextJob(storedAt));
    await database.db.transaction().execute((trx) => writeNormalizedRows(trx, jobs, database.rowRunner));
  }
}

async function measure(variant) {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-persons-write-'));
  const database = await openMigratedDatabase(join(dir, 'bench.db'));
  try {
    for (const statement of VARIANTS[variant]) await sql.raw(statement).execute(database.db);
    await write(database, prefill);
    const before = process.cpuUsage();
    const started = performance.now();
    await write(database, pages);
    const cpu = process.cpuUsage(before);
    return { cpuMs: (cpu.user + cpu.system) / 1000 / pages, wallMs: (performance.now() - started) / pages };
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]));
for (let run = 0; run < Number(flags.runs); run++) {
  for (const name of Object.keys(VARIANTS)) {
    results[name].push(await measure(name));
    console.error(
      `[persons-write] run ${run + 1}: ${name} ${results[name].at(-1).cpuMs.toFixed(2)} ms CPU a page`,
    );
  }
}
const range = (values) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
const lines = [
  `Command: \`node bench/persons-write.mjs --pages ${pages} --batch ${batch} --runs ${flags.runs}\` — ` +
    `${prefill * 250} persons stored first, then ${pages} pages of 250 persons timed, ${batch} a transaction.`,
  '',
  ...ownMachineLines(),
  '| persons indexes | CPU ms a page (per run) | wall ms a page |',
  '|---|---:|---:|',
  ...Object.entries(results).map(
    ([name, runs]) =>
      `| ${name} | ${range(runs.map((r) => r.cpuMs))} | ${range(runs.map((r) => r.wallMs))} |`,
  ),
];
console.log(lines.join('\n'));
