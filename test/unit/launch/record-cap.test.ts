/** Issue 43 part 4: a record past 1 MiB is never held, in either input format. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { cappedLines } from '../../../src/launch/capped-lines.js';
import { MAX_RECORD_BYTES, readRows } from '../../../src/launch/read-rows.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('the record cap', () => {
  it('splits lines across chunks, drops a long one as it streams, keeps the ones after it', async () => {
    const chunks = ['ab\r\ncd', 'e\nxxxxxxx', 'xxxxxxxx', 'x\nfg', 'h\n', 'é'];
    expect(await collect(cappedLines(Readable.from(chunks), 8))).toEqual([
      { text: 'ab' },
      { text: 'cde' },
      { tooLong: true },
      { text: 'fgh' },
      { text: 'é' },
    ]);
  });

  it('stops a CSV whose quote never closes at the cap, as an InputError naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hooksync-record-cap-'));
    try {
      const path = join(dir, 'contacts.csv');
      await writeFile(
        path,
        `Email,Id\nann@acme.com,1\n"${'x'.repeat(2 * MAX_RECORD_BYTES)}\nbo@acme.com,2\n`,
      );
      const error = await collect(readRows(path, 'csv')).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toMatch(/^contacts\.csv: .*(max|size)/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
