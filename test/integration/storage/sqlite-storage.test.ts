/** The storage suite on SQLite: real files in a temporary directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { defineStorageSuite } from './storage-suite.js';

const directory = mkdtempSync(join(tmpdir(), 'hooksync-storage-'));
let next = 0;

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('storage on SQLite', () => {
  defineStorageSuite({
    dialect: 'sqlite',
    async provision() {
      next += 1;
      const url = join(directory, `db-${next}.sqlite`);
      return {
        url,
        async drop() {
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${url}${suffix}`, { force: true });
        },
      };
    },
  });
});
