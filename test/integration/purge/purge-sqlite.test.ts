/** `hooksync purge` on SQLite, and its usage errors. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { definePurgeSuite } from './purge-suite.js';

describe('purge on SQLite', () => {
  definePurgeSuite({
    async provision() {
      const dir = mkdtempSync(join(tmpdir(), 'hooksync-purge-'));
      return {
        url: join(dir, 'hooksync.db'),
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  });
});

describe('purge usage', () => {
  it.each([
    [[], 'exactly one of --older-than'],
    [
      ['--older-than', '90d', '--person', 'https://www.linkedin.com/in/someone'],
      'exactly one of --older-than',
    ],
    [['--older-than', '90d', '--include-jobs'], '--include-jobs goes with --person'],
    [['--older-than', '90'], '--older-than: "90" is not a duration'],
    [['--older-than', 'soon'], '--older-than: "soon" is not a duration'],
    [['--person', ' / '], '--person:'],
  ])('purge %j is a usage error (exit 2) that touches no database', async (args, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'hooksync-purge-usage-'));
    try {
      const url = join(dir, 'never-created.db');
      const run = await runCliCaptured(['purge', ...args, '--database-url', url]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stdout).toBe('');
      expect(existsSync(url)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
