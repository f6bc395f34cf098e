/**
 * A directory given where the SQLite file belongs is named as a directory, with the file to name instead,
 * not `SQLITE_CANTOPEN … temporarily unavailable`; the library's openDatabase says the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/storage/open-database.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';

describe('a directory as the SQLite database', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-sqlite-dir-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const said = (path: string) =>
    `cannot open SQLite database ${path}: it is a directory; name a file inside it (e.g. ${join(dir, 'hooksync.db')})`;

  it.each([[['migrate']], [['jobs', 'list']], [['launch', 'reveal', '--from', '-', '--dry-run']]])(
    '%j says so in one line',
    async (argv) => {
      const run = await runCliCaptured([...argv, '--database-url', dir], { stdin: 'ip\n203.0.113.7\n' });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`hooksync: ${said(dir)} (STORAGE_FAILED)\n`);
      expect(run.stderr).not.toMatch(/CANTOPEN|temporarily/);
    },
  );

  it('openDatabase refuses it as permanent', async () => {
    await expect(openDatabase(dir)).rejects.toMatchObject({ message: said(dir), transient: false });
  });
});
