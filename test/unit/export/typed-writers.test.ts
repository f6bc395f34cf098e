/**
 * The typed writers: cells to typed values, JSON lines, and Parquet read back by DuckDB across several row
 * groups, with every type and nulls.
 */

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TemplateError } from '../../../src/errors.js';
import { typedCell } from '../../../src/export/typed-cell.js';
import { writeJsonl } from '../../../src/export/write-jsonl.js';
import { writeParquet } from '../../../src/export/write-parquet.js';

const header = ['name', 'count', 'active', 'seen_at'];
const types = ['string', 'integer', 'boolean', 'timestamp'] as const;
const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => [
    i % 7 === 0 ? '' : `name ${i}, "quoted" ü`,
    i % 5 === 0 ? '' : String(i * 1000),
    i % 3 === 0 ? '' : i % 2 === 0 ? 'true' : '0',
    i % 11 === 0 ? '' : new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  ]);

describe('typedCell', () => {
  it('reads each type, empty as null', () => {
    expect(typedCell('', 'integer', 'c')).toBeNull();
    expect(typedCell(' 42 ', 'integer', 'c')).toBe(42);
    expect(typedCell('9007199254740993', 'integer', 'c', true)).toBe(9007199254740993n);
    expect(typedCell('Yes', 'boolean', 'c')).toBe(true);
    expect(typedCell('0', 'boolean', 'c')).toBe(false);
    expect(typedCell('2026-03-10T08:00:00.123Z', 'timestamp', 'c')).toBe(
      Date.parse('2026-03-10T08:00:00.123Z'),
    );
    expect(typedCell('=1+1', 'string', 'c')).toBe('=1+1');
  });

  it.each([
    ['4.5', 'integer'],
    ['9007199254740993', 'integer'],
    ['maybe', 'boolean'],
    ['yesterday', 'timestamp'],
    ['12345', 'timestamp'],
  ] as const)('refuses %j as %s, naming the column', (text, type) => {
    expect(() => typedCell(text, type, 'Column A')).toThrow(TemplateError);
    expect(() => typedCell(text, type, 'Column A')).toThrow(/^column Column A: /);
  });
});

describe('writeJsonl', () => {
  it('writes one object per row with JSON types', async () => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    const result = await writeJsonl(rows(3), out, { header, types: [...types] });
    expect(result.rows).toBe(3);
    expect(
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { name: null, count: null, active: null, seen_at: null },
      { name: 'name 1, "quoted" ü', count: 1000, active: false, seen_at: '2026-01-01T00:00:01.000Z' },
      { name: 'name 2, "quoted" ü', count: 2000, active: true, seen_at: '2026-01-01T00:00:02.000Z' },
    ]);
  });
});

describe('writeParquet', () => {
  let dir: string;
  let duck: Awaited<ReturnType<Awaited<ReturnType<typeof DuckDBInstance.create>>['connect']>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hooksync-parquet-'));
    duck = await (await DuckDBInstance.create(':memory:')).connect();
  });
  afterAll(async () => {
    duck?.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes row groups DuckDB reads back typed, nulls and all', async () => {
    const file = join(dir, 'typed.parquet');
    const stream = createWriteStream(file);
    const progress: number[] = [];
    const result = await writeParquet(rows(2500), stream, {
      header,
      types: [...types],
      rowGroupRows: 1000,
      onProgress: (n) => progress.push(n),
    });
    stream.end();
    await finished(stream);
    expect(result.rows).toBe(2500);
    expect(progress.at(-1)).toBe(2500);
    const read = async (q: string) => (await duck.runAndReadAll(q)).getRowObjectsJson();
    const described = await read(`describe select * from read_parquet('${file}')`);
    expect(described.map((c) => [c.column_name, c.column_type])).toEqual([
      ['name', 'VARCHAR'],
      ['count', 'BIGINT'],
      ['active', 'BOOLEAN'],
      ['seen_at', 'TIMESTAMP WITH TIME ZONE'],
    ]);
    const groups = await read(`select count(distinct row_group_id) as g from parquet_metadata('${file}')`);
    expect(Number(groups[0]?.g)).toBe(3);
    const [summary] = await read(
      `select count(*) as n, count(name) as names, sum(count) as total, count(*) filter (where active) as yes,
        strftime(max(seen_at) at time zone 'UTC', '%Y-%m-%dT%H:%M:%SZ') as last from read_parquet('${file}')`,
    );
    const expected = rows(2500);
    expect(summary).toEqual({
      n: '2500',
      names: String(expected.filter((r) => r[0] !== '').length),
      total: String(expected.reduce((sum, r) => sum + Number(r[1] || 0), 0)),
      yes: String(expected.filter((r) => r[2] === 'true').length),
      last: '2026-01-01T00:41:39Z',
    });
  });

  it('writes a valid file with no rows', async () => {
    const file = join(dir, 'empty.parquet');
    const stream = createWriteStream(file);
    expect((await writeParquet([], stream, { header, types: [...types] })).rows).toBe(0);
    stream.end();
    await finished(stream);
    const [{ n }] = (
      await duck.runAndReadAll(`select count(*) as n from read_parquet('${file}')`)
    ).getRowObjectsJson() as [{ n: string }];
    expect(n).toBe('0');
  });
});
