#!/usr/bin/env node
// Export benchmark: `hooksync export --template persons --out FILE` (the command, in-process: one row per
// person found in SQL, the template, the formula guard, csv-stringify, the excel dialect, temp file + rename),
// the same through the library (runExport), and the floor, a bare better-sqlite3 iterate → csv-stringify
// loop over the same table; same run, rotating, each run in a fresh child process (its own peak RSS).
//
//   npm run build && node bench/export.mjs            # 1,000,000 persons, 5 rounds
//   node bench/export.mjs --quick                     # 100,000 persons, 3 rounds
//   node bench/export.mjs --rows 250000 --rounds 4
//   node bench/export.mjs --quick --db /tmp/bench.db  # keep (and reuse) the seeded database
//   node bench/export.mjs --formats                   # also the command with --format jsonl and parquet
//
// Prints a markdown table: rows/s and peak RSS, medians with min–max. Targets: hooksync ≥ 0.5 × the
// floor's rows/s, peak RSS < 150 MB.
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { ownMachineLines } from './lib/machine.mjs';
import { formatInteger, formatSummary, summarize } from './lib/stats.mjs';

const DIST = new URL('../dist/', import.meta.url);
const SELF = fileURLToPath(import.meta.url);
const RSS_TARGET_MB = 150;
/** Issue 39: a Parquet export of 1,000,000 persons stays under 200 MB RSS. */
const PARQUET_RSS_TARGET_MB = 200;
/** The typed formats `--formats` adds as variants of the command. */
const FORMATS = ['jsonl', 'parquet'];
const SPEED_TARGET = 0.5;

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};

if (flag('--child')) await child(value('--child'), value('--db'), value('--out'));
else await main();

async function main() {
  const quick = flag('--quick');
  const rows = Number(value('--rows', quick ? 100_000 : 1_000_000));
  const rounds = Number(value('--rounds', quick ? 3 : 5));
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-export-'));
  try {
    // --db FILE keeps the seeded database for later runs (seeded only when the file does not exist yet).
    const db = value('--db', join(dir, 'bench.db'));
    if (!existsSync(db)) {
      const seeded = await seed(db, rows);
      console.error(
        `seeded ${seeded.toLocaleString('en-US')} persons in ${rows.toLocaleString('en-US')} rows in ${db}`,
      );
    }
    const results = { floor: [], library: [], command: [] };
    if (flag('--formats')) for (const format of FORMATS) results[format] = [];
    const variants = Object.keys(results);
    for (let round = 0; round < rounds; round += 1) {
      // Rotate which goes first, so that none always gets the warmer page cache.
      const order = variants.map((_, i) => variants[(i + round) % variants.length]);
      for (const variant of order) {
        const out = join(dir, `${variant}.csv`);
        const run = spawnSync(process.execPath, [SELF, '--child', variant, '--db', db, '--out', out], {
          encoding: 'utf8',
        });
        if (run.status !== 0) throw new Error(`${variant} failed: ${run.stderr}`);
        const result = JSON.parse(run.stdout);
        results[variant].push(result);
        console.error(
          `round ${round + 1} ${variant}: ${formatInteger(result.rows / result.seconds)} rows/s, ${result.rssMb.toFixed(0)} MB`,
        );
      }
    }
    report(rows, rounds, results);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Fills a fresh database with `rows` persons in pages of 100, one in twenty a repeat of an earlier person. */
async function seed(file, rows) {
  const { openDatabase } = await import(new URL('storage/open-database.js', DIST).href);
  const { migrateToLatest } = await import(new URL('storage/migrate-to-latest.js', DIST).href);
  const database = await openDatabase(file, { synchronous: 'NORMAL' });
  const report = await migrateToLatest(database);
  await database.close();
  if (report.error) throw report.error;
  const { default: Database } = await import('better-sqlite3');
  const raw = new Database(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = OFF');
  const insert = raw.prepare(
    `INSERT INTO persons (job_id, position, source_kind, person_id, first_name, last_name, linkedin_id, linkedin_url,
      location, country, company_id, company_linkedin_id, company_name, company_domain, title, seniority,
      department, received_at)
     VALUES (?, ?, 'search_contact', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const first = ['Lena', 'José', 'Zoë', 'Łukasz', '田中', "O'Brien", 'Ana', 'Tobias'];
  const titles = ['VP Sales', '-Head of Growth', 'Director, Marketing', 'CTO', '=Engineer', 'Account "Exec"'];
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const { personTextsRow, asBuffer } = await import(new URL('storage/person-texts.js', DIST).href);
  const insertTexts = raw.prepare('INSERT INTO person_texts (job_id, abouts_z) VALUES (?, ?)');
  let abouts = [];
  let distinct = 0;
  raw.transaction(() => {
    for (let i = 0; i < rows; i += 1) {
      const page = Math.floor(i / 100);
      // A repeat names a person first seen 1001 rows earlier (never itself a repeat): i % 20 === 18 there.
      const repeat = i % 20 === 19 && i > 1001;
      const n = repeat ? i - 1001 : i;
      if (!repeat) distinct += 1;
      const handle = `person-${n}`;
      insert.run(
        `00000000-0000-4000-8000-${String(page).padStart(12, '0')}`,
        i % 100,
        `p${n}`,
        first[n % first.length],
        `Surname ${n}`,
        handle,
        `https://www.linkedin.com/in/${handle}`,
        'Berlin, Berlin, Germany',
        'Germany',
        `c${n % 5000}`,
        String(100000 + (n % 5000)),
        `Company ${n % 5000}, Inc.`,
        `company-${n % 5000}.example`,
        titles[n % titles.length],
        'Director',
        'Sales',
        new Date(start + page * 1000).toISOString(),
      );
      // `about` is kept per job (person_texts), as the store writes it: one row per page of 100.
      abouts.push(
        `About ${n}: builds teams, ships products, "likes" commas, and writes long-ish profile texts.`,
      );
      if (i % 100 === 99 || i === rows - 1) {
        for (const row of personTextsRow(
          `00000000-0000-4000-8000-${String(page).padStart(12, '0')}`,
          abouts,
        )) {
          insertTexts.run(row.job_id, asBuffer(row.abouts_z));
        }
        abouts = [];
      }
    }
  })();
  raw.close();
  return distinct;
}

async function child(variant, file, out) {
  // The clock starts before the modules load: each variant is timed as a whole command would be.
  const started = process.hrtime.bigint();
  const typed = (format) => (file, out) => threadCommand(file, out, format);
  const run = { floor, library, command, jsonl: typed('jsonl'), parquet: typed('parquet') }[variant];
  if (run === undefined) throw new TypeError(`unknown variant ${variant}`);
  const rows = await run(file, out);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // ru_maxrss is in kilobytes on Linux.
  const rssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ rows, seconds, rssMb }));
}

/**
 * The floor: the same columns straight from better-sqlite3 into a csv-stringify stream, `about` from the
 * page's person_texts row (kept per job and compressed since migration 008), decoded once per page.
 */
async function floor(file, out) {
  const { default: Database } = await import('better-sqlite3');
  const { stringify } = await import('csv-stringify');
  const raw = new Database(file, { readonly: true });
  const statement = raw
    .prepare(
      `SELECT person_id, first_name, last_name, linkedin_id, linkedin_url, position, location, country, company_id,
        company_linkedin_id, company_name, company_domain, title, seniority, department, NULL, NULL, NULL, NULL,
        job_id, source_kind, received_at FROM persons`,
    )
    .raw(true);
  const stringifier = stringify({ bom: true, record_delimiter: 'windows' });
  const sink = createWriteStream(out);
  stringifier.pipe(sink);
  // about is kept per job (person_texts): decode each page's texts once, as the export does.
  const { decodePersonTexts } = await import(new URL('storage/person-texts.js', DIST).href);
  const texts = raw.prepare('SELECT abouts_z FROM person_texts WHERE job_id = ?').pluck();
  let lastJob;
  let abouts = [];
  let rows = 0;
  for (const row of statement.iterate()) {
    const jobId = row[19];
    if (jobId !== lastJob) {
      const stored = texts.get(jobId);
      abouts = stored === undefined ? [] : decodePersonTexts(stored);
      lastJob = jobId;
    }
    row[5] = abouts[row[5]] ?? null;
    if (!stringifier.write(row)) await new Promise((resolve) => stringifier.once('drain', resolve));
    rows += 1;
  }
  stringifier.end();
  await finished(sink);
  raw.close();
  return rows;
}

/** The library: openDatabase, loadTemplate and runExport, as a program embedding hooksync would call them. */
async function library(file, out) {
  const { openDatabase } = await import(new URL('storage/open-database.js', DIST).href);
  const { loadTemplate } = await import(new URL('export/load-template.js', DIST).href);
  const { runExport } = await import(new URL('export/run-export.js', DIST).href);
  const database = await openDatabase(file);
  try {
    return (await runExport(database.db, await loadTemplate('persons'), { out })).rows;
  } finally {
    await database.close();
  }
}

/** The command itself, `hooksync export --template persons --out FILE`, run in this process. */
async function command(file, out, format = 'csv') {
  const { runCli } = await import(new URL('cli/run-cli.js', DIST).href);
  const stderr = new PassThrough();
  let said = '';
  stderr.on('data', (chunk) => {
    said += chunk;
  });
  const argv = ['export', '--template', 'persons', '--out', out, '--database-url', file, '--format', format];
  const code = await runCli(argv, {
    env: {},
    stdin: Readable.from([]),
    stdout: new PassThrough().resume(),
    stderr,
    interactive: false,
    setExitCode: () => {},
    shutdown: new Promise(() => {}),
  });
  const rows = /exported ([\d,]+) rows/.exec(said)?.[1];
  if (code !== 0 || rows === undefined) throw new Error(`hooksync export failed (${code}): ${said}`);
  return Number(rows.replaceAll(',', ''));
}

/**
 * The command as the executable runs it (main.ts): in the bounded thread V8 limits (`export` is one), with
 * its streams piped to this process's.
 */
async function threadCommand(file, out, format) {
  const thread = await import(new URL('cli/bounded-thread.js', DIST).href);
  const stderr = new PassThrough();
  let said = '';
  stderr.on('data', (chunk) => {
    said += chunk;
  });
  const argv = ['export', '--template', 'persons', '--out', out, '--database-url', file, '--format', format];
  const host = {
    env: {},
    stdin: Readable.from([]),
    stdout: new PassThrough().resume(),
    stderr,
    interactive: false,
    shutdown: new Promise(() => {}),
  };
  const code = await thread.runInBoundedThread(argv, thread.boundedCommand(argv), host);
  const rows = /exported ([\d,]+) rows/.exec(said)?.[1];
  if (code !== 0 || rows === undefined) throw new Error(`hooksync export failed (${code}): ${said}`);
  return Number(rows.replaceAll(',', ''));
}

function report(rows, rounds, results) {
  const stats = (runs) => ({
    rows: runs[0].rows,
    speed: summarize(runs.map((r) => r.rows / r.seconds)),
    rss: summarize(runs.map((r) => r.rssMb)),
  });
  const floorStats = stats(results.floor);
  const libraryStats = stats(results.library);
  const commandStats = stats(results.command);
  const ratio = (s) => s.speed.median / floorStats.speed.median;
  const speedMet = ratio(commandStats) >= SPEED_TARGET;
  const rssMet = commandStats.rss.max < RSS_TARGET_MB;
  const lines = [
    ...ownMachineLines(),
    `Export of ${formatInteger(rows)} stored persons (one in twenty a repeat of an earlier person), ${rounds} rounds, ` +
      'each run in a fresh process, in rotating order; rows/s over the whole run (module loading, opening the ' +
      'database, loading the template, writing the file), peak RSS of the process.',
    '',
    '| variant | rows written | rows/s, median (min–max) | × floor | peak RSS MB, median (min–max) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [name, s] of [
    ['floor: better-sqlite3 iterate → csv-stringify', floorStats],
    ['library: `runExport(db, persons template)`', libraryStats],
    ['command: `hooksync export --template persons --out FILE`', commandStats],
    ...FORMATS.filter((format) => results[format] !== undefined).map((format) => [
      `command, in its bounded thread: \`… --format ${format}\``,
      stats(results[format]),
    ]),
  ]) {
    lines.push(
      `| ${name} | ${formatInteger(s.rows)} | ${formatSummary(s.speed)} | ${ratio(s).toFixed(2)} | ${formatSummary(s.rss)} |`,
    );
  }
  lines.push(
    '',
    `Command: ${ratio(commandStats).toFixed(2)} × the floor's rows/s (target ≥ ${SPEED_TARGET}: ${speedMet ? 'met' : 'NOT met'}); ` +
      `peak RSS at most ${commandStats.rss.max.toFixed(0)} MB (target < ${RSS_TARGET_MB} MB: ${rssMet ? 'met' : 'NOT met'}).`,
    'hooksync writes one row per person (the newest, found in SQL), the floor every stored row; hooksync also ' +
      'applies the template, the formula guard and the excel dialect, and writes through a temporary file.',
    "The command loads every CLI command's modules at start (about 20 MB more than the library).",
  );
  let parquetMet = true;
  if (results.parquet !== undefined) {
    const parquet = stats(results.parquet);
    parquetMet = parquet.rss.max < PARQUET_RSS_TARGET_MB;
    lines.push(
      `Parquet: peak RSS at most ${parquet.rss.max.toFixed(0)} MB (target < ${PARQUET_RSS_TARGET_MB} MB: ${parquetMet ? 'met' : 'NOT met'}), ` +
        'typed columns gathered into row groups of 10,000 rows; JSON lines and Parquet are not formula-guarded.',
    );
  }
  console.log(lines.join('\n'));
  if (!speedMet || !rssMet || !parquetMet) process.exitCode = 1;
}
