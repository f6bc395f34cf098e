#!/usr/bin/env node
/**
 * Storage footprint: bytes on disk per byte received, for realistic 250-person Search Contact pages and
 * realistic Company Reveal results (bench/lib/realistic-payloads.mjs), on SQLite and on Postgres. Each
 * kind goes into a fresh database through the job store of the built package (dist/), with every row it
 * derives; then SQLite is checkpointed (the WAL folded into the file and truncated) and its file measured,
 * Postgres vacuumed and its tables measured with their indexes and TOAST. SQLite's dbstat table gives the
 * bytes of each table and index.
 *
 *   npm run build && node bench/footprint.mjs                  # 60 pages, 1,500 reveals
 *   node bench/footprint.mjs --pages 20 --reveals 500 --no-pg
 *   options: --pg-url postgres://…   --dist DIR (another build, e.g. of an earlier commit)
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ownMachineLines } from './lib/machine.mjs';
import { createRandom, realisticReveal, realisticSearchPage } from './lib/realistic-payloads.mjs';

const { values: flags } = parseArgs({
  options: {
    pages: { type: 'string', default: '60' },
    reveals: { type: 'string', default: '1500' },
    'pg-url': { type: 'string' },
    'no-pg': { type: 'boolean', default: false },
    dist: { type: 'string' },
  },
});
const dist =
  flags.dist === undefined ? new URL('../dist/', import.meta.url) : pathToFileURL(`${resolve(flags.dist)}/`);
const { openMigratedDatabase, createJobStore } = await import(new URL('index.js', dist).href);
const pgUrl = flags['pg-url'] ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The bodies of one kind, generated once so that both databases get the same bytes. */
function bodies(kind, count) {
  const random = createRandom(kind === 'page' ? 7 : 11);
  return Array.from({ length: count }, (_, i) =>
    kind === 'page' ? realisticSearchPage(random, id(i + 1)) : realisticReveal(random, id(i + 1)),
  );
}

/** Stores `texts` as verified callbacks would arrive (each with a jti), 32 in flight. */
async function storeAll(database, texts) {
  const store = createJobStore({ database });
  for (let start = 0; start < texts.length; start += 32) {
    await Promise.all(
      texts
        .slice(start, start + 32)
        .map((envelopeText) => store.store({ envelopeText, source: 'webhook', jti: randomUUID() })),
    );
  }
  await store.close();
}

/** The replay guard's table and indexes: `serve` deletes each row once its token has expired (15 min). */
const JTI_PARTS = new Set(['deliveries', 'sqlite_autoindex_deliveries_1', 'deliveries_expires_at_idx']);

async function sqliteFootprint(texts) {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-footprint-'));
  const file = join(dir, 'footprint.db');
  try {
    const database = await openMigratedDatabase(file);
    await storeAll(database, texts);
    await database.close();
    const { default: Sqlite } = await import('better-sqlite3');
    const raw = new Sqlite(file);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    const parts = raw
      .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all();
    raw.close();
    let bytes = 0;
    for (const suffix of ['', '-wal'])
      bytes += (await stat(`${file}${suffix}`).catch(() => ({ size: 0 }))).size;
    const jti = parts.filter((part) => JTI_PARTS.has(part.name)).reduce((sum, part) => sum + part.bytes, 0);
    return { bytes, jti, parts };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgresFootprint(texts) {
  const { default: pg } = await import('pg');
  const name = `hs_footprint_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  try {
    const database = await openMigratedDatabase(url.toString());
    await storeAll(database, texts);
    await database.close();
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    await client.query('VACUUM ANALYZE');
    const { rows } = await client.query(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY bytes DESC`,
    );
    await client.end();
    const parts = rows.map((row) => ({ name: row.name, bytes: Number(row.bytes) }));
    return { bytes: parts.reduce((sum, part) => sum + part.bytes, 0), parts };
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function postgresAvailable() {
  if (flags['no-pg']) return false;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const kinds = [
  ['page', 'realistic Search Contact pages of 250 people', Number(flags.pages), 0.5],
  ['reveal', 'realistic Company Reveal results', Number(flags.reveals), 1.0],
];
const withPg = await postgresAvailable();
const lines = [
  ...ownMachineLines(),
  `Command: \`node bench/footprint.mjs --pages ${flags.pages} --reveals ${flags.reveals}\`${flags.dist ? ` --dist ${flags.dist}` : ''}`,
  '',
  '| bodies | received | SQLite on disk | × received | target | without expired jti records | Postgres on disk | × received |',
  '|---|---:|---:|---:|---|---:|---:|---:|',
];
const breakdown = [];
for (const [kind, label, count, target] of kinds) {
  if (count === 0) continue;
  const texts = bodies(kind, count);
  const received = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  console.error(`[footprint] ${count} ${kind}s, ${received} bytes: SQLite`);
  const sqlite = await sqliteFootprint(texts);
  console.error(`[footprint] ${kind}s: Postgres`);
  const postgres = withPg ? await postgresFootprint(texts) : undefined;
  const ratio = (n) => `${(n / received).toFixed(2)}×`;
  const met = sqlite.bytes <= target * received ? 'met' : '**NOT met**';
  lines.push(
    `| ${count.toLocaleString('en-US')} ${label} (${Math.round(received / count).toLocaleString('en-US')} bytes each) | ${mb(received)} | ${mb(sqlite.bytes)} | ${ratio(sqlite.bytes)} | ≤ ${target.toFixed(1)}×: ${met} | ${ratio(sqlite.bytes - sqlite.jti)} | ${postgres ? mb(postgres.bytes) : '—'} | ${postgres ? ratio(postgres.bytes) : '—'} |`,
  );
  const top = (parts) =>
    parts
      .filter((part) => part.bytes >= received * 0.01)
      .map((part) => `${part.name} ${ratio(part.bytes)}`)
      .join(', ');
  breakdown.push(`- ${kind}s, SQLite: ${top(sqlite.parts)}`);
  if (postgres) breakdown.push(`- ${kind}s, Postgres: ${top(postgres.parts)}`);
}
const empty = await sqliteFootprint([]);
lines.push(
  '',
  `SQLite on disk: the file after a checkpoint, every table and index included (an empty database takes ${mb(empty.bytes)}).`,
  '"Without expired jti records": the same minus the replay guard (deliveries and its indexes), whose rows `serve` deletes once their tokens have expired; the pages they free are reused by later rows.',
  'Postgres on disk: every table with its indexes and TOAST, after VACUUM (WAL not counted).',
  '',
  'Where the bytes are (tables and indexes holding at least 1 % of the received bytes):',
  ...breakdown,
);
if (!withPg) lines.push('', `Postgres skipped: ${flags['no-pg'] ? '--no-pg given' : 'no server answered'}.`);
console.log(lines.join('\n'));
