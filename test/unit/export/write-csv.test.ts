import { PassThrough, Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainNumber, startsFormula, unguardFormula } from '../../../src/export/formula-guard.js';
import { writeCsv } from '../../../src/export/write-csv.js';

async function toBuffer(
  rows: Iterable<readonly string[]> | AsyncIterable<readonly string[]>,
  options: Parameters<typeof writeCsv>[2],
): Promise<Buffer> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  await writeCsv(rows, sink, options);
  sink.end();
  return Buffer.concat(chunks);
}

describe('writeCsv', () => {
  it('excel: BOM, CRLF, quoting by csv-stringify, guarded cells', async () => {
    const bytes = await toBuffer(
      [
        ['Acme, Inc.', 'say "hi"', 'two\nlines', '=1+1'],
        ['', '-3', '+33 1 23 45 67 89', 'lone\rCR'],
      ],
      { header: ['a', 'b', 'c', 'd'], dialect: 'excel' },
    );
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8').slice(1)).toBe(
      'a,b,c,d\r\n"Acme, Inc.","say ""hi""","two\nlines",\'=1+1\r\n,-3,\'+33 1 23 45 67 89,"lone\rCR"\r\n',
    );
  });

  it('crm-import: no BOM, LF', async () => {
    const text = (await toBuffer([['x']], { header: ['FirstName'], dialect: 'crm-import' })).toString('utf8');
    expect(text).toBe('FirstName\nx\n');
  });

  it('honours back-pressure and reports progress', async () => {
    let written = 0;
    const slow = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, callback) {
        written += chunk.length;
        setImmediate(callback);
      },
    });
    const progress: number[] = [];
    async function* rows() {
      for (let i = 0; i < 25_000; i += 1) yield [`row ${i}`, 'x'.repeat(20)];
    }
    const result = await writeCsv(rows(), slow, { onProgress: (n) => progress.push(n) });
    expect(result.rows).toBe(25_000);
    expect(progress).toEqual([10_000, 20_000, 25_000]);
    expect(written).toBeGreaterThan(25_000 * 20);
  });

  it('rejects when the destination fails', async () => {
    const failing = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('disk full'));
      },
    });
    await expect(writeCsv([['a'], ['b']], failing, { header: ['h'] })).rejects.toThrow('disk full');
  });

  it('round-trips any strings through csv-parse, with no formula left (property)', async () => {
    const cell = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme-composite' }),
      fc.constantFrom('=1+1', '-3', '+33 1 23 45 67 89', '@x', '\t=x', '"', ',', '\r\n', '\r', "'=x", '＝x'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom('excel' as const, 'crm-import' as const),
        async (rows, dialect) => {
          const text = (await toBuffer(rows, { header: ['a', 'b', 'c'], dialect })).toString('utf8');
          const parsed: string[][] = parse(text, { bom: true, relax_column_count: false });
          expect(parsed[0]).toEqual(['a', 'b', 'c']);
          const back = parsed.slice(1);
          expect(back.map((r) => r.map(unguardFormula))).toEqual(rows);
          for (const r of back) for (const c of r) expect(startsFormula(c) && !isPlainNumber(c)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
