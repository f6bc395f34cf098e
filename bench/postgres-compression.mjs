#!/usr/bin/env node
/**
 * Postgres: compress envelopes in hooksync (envelope-codec.ts, bytea with STORAGE EXTERNAL, as migration
 * 008 stores them) or let Postgres compress the text column (pglz, the default, or lz4)? The same realistic
 * pages and reveals go into one table per choice; the table's size with its TOAST is compared with the
 * bytes received, and the insert time is the server's work plus ours.
 *
 *   npm run build && node bench/postgres-compression.mjs [--pages 60] [--reveals 1500] [--pg-url postgres://…]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createRandom, realisticReveal, realisticSearchPage } from './lib/realistic-payloads.mjs';

const { values: flags } = parseArgs({
  options: {
    pages: { type: 'string', default: '60' },
    reveals: { type: 'string', default: '1500' },
    'pg-url': { type: 'string' },
  },
});
const { encodeEnvelope } = await import(new URL('../dist/storage/envelope-codec.js', import.meta.url).href);
const url = flags['pg-url'] ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const pageRandom = createRandom(7);
const revealRandom = createRandom(11);
const sets = {
  pages: Array.from({ length: Number(flags.pages) }, (_, i) => realisticSearchPage(pageRandom, id(i))),
  reveals: Array.from({ length: Number(flags.reveals) }, (_, i) => realisticReveal(revealRandom, id(i))),
};
const CHOICES = [
  ['text, pglz (Postgres default)', 'text COMPRESSION pglz', (t) => t],
  ['text, lz4 column compression', 'text COMPRESSION lz4', (t) => t],
  ['bytea, hooksync codec, STORAGE EXTERNAL', 'bytea', (t) => encodeEnvelope(t)],
];

const admin = new pg.Client({ connectionString: url });
await admin.connect();
const name = `hs_compression_${process.pid}`;
await admin.query(`CREATE DATABASE ${name}`);
const target = new URL(url);
target.pathname = `/${name}`;
const client = new pg.Client({ connectionString: target.toString() });
await client.connect();
const lines = [
  `Command: \`node bench/postgres-compression.mjs --pages ${flags.pages} --reveals ${flags.reveals}\` (${(await client.query('SHOW server_version')).rows[0].server_version}).`,
  '',
  '| envelopes | column | table + TOAST | × received | insert ms (one transaction) |',
  '|---|---|---:|---:|---:|',
];
try {
  for (const [set, texts] of Object.entries(sets)) {
    const received = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0);
    for (const [label, type, encode] of CHOICES) {
      const table = `t_${set}_${CHOICES.findIndex((c) => c[0] === label)}`;
      await client.query(`CREATE TABLE ${table} (job_id text PRIMARY KEY, envelope ${type} NOT NULL)`);
      if (type === 'bytea')
        await client.query(`ALTER TABLE ${table} ALTER COLUMN envelope SET STORAGE EXTERNAL`);
      const started = performance.now();
      await client.query('BEGIN');
      for (const [i, text] of texts.entries()) {
        await client.query(`INSERT INTO ${table} VALUES ($1, $2)`, [id(i), encode(text)]);
      }
      await client.query('COMMIT');
      const ms = performance.now() - started;
      await client.query(`VACUUM ${table}`);
      const { rows } = await client.query(`SELECT pg_table_size('${table}')::bigint AS bytes`);
      const bytes = Number(rows[0].bytes);
      lines.push(
        `| ${texts.length} realistic ${set} (${(received / 1e6).toFixed(2)} MB) | ${label} | ${(bytes / 1e6).toFixed(2)} MB | ${(bytes / received).toFixed(2)}× | ${Math.round(ms)} |`,
      );
    }
  }
} finally {
  await client.end();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
console.log(lines.join('\n'));
