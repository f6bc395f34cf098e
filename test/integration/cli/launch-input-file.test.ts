/**
 * `launch --from` a file that is not there, a directory or an empty file: one line naming the file (exit 1),
 * never a stack trace from an unhandled stream error; an empty file warns "0 rows" on stderr.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';

describe('launch --from a file that cannot be read', () => {
  let dir: string;
  // Port 2: nothing listens there, so nothing could be launched even if the command went that far.
  const service = ['--api-base-url', 'http://127.0.0.1:2', '--api-key', 'k'];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-launch-input-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['reveal', 'missing.csv'],
    ['job-change', 'missing.jsonl'],
  ])('%s --from %s names the missing file in one line, exit 1, and creates no database', async (op, name) => {
    const file = join(dir, name);
    const database = join(dir, `${op}.db`);
    const run = await runCliCaptured(['launch', op, '--from', file, ...service, '--database-url', database]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`hooksync: ${file}: no such file\n`);
    expect(existsSync(database)).toBe(false);
  });

  it('says a directory is a directory', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const run = await runCliCaptured([
      'launch',
      'reveal',
      '--from',
      folder,
      ...service,
      '--database-url',
      join(dir, 'folder.db'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`hooksync: ${folder} is a directory: --from takes a file\n`);
  });

  it.each([
    ['an empty file', ''],
    ['a header without rows', 'ip\n'],
  ])('warns "0 rows" on stderr for %s', async (_name, text) => {
    const file = join(dir, `empty-${text.length}.csv`);
    writeFileSync(file, text);
    const run = await runCliCaptured([
      'launch',
      'reveal',
      '--from',
      file,
      '--dry-run',
      '--database-url',
      join(dir, `empty-${text.length}.db`),
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`warning: ${file} has 0 rows: nothing to launch\n`);
    expect(run.stdout).toMatch(/^dry run: 0 rows/);
  });

  it.each([
    ['--map', ['--map', 'ip=IP']],
    ['--carry', ['--map', 'ip=address', '--carry', 'crm_id=Id']],
  ])('says a %s column the header lacks first and only, not after one error per row', async (_flag, args) => {
    const file = join(dir, 'five-hundred.csv');
    writeFileSync(
      file,
      `address\n${Array.from({ length: 500 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join('\n')}\n`,
    );
    const run = await runCliCaptured([
      'launch',
      'reveal',
      '--from',
      file,
      ...args,
      ...service,
      '--database-url',
      join(dir, 'columns.db'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^hooksync: five-hundred\.csv has no column "(IP|Id)" \(named by --map or --carry\)\n$/,
    );
  });
});
