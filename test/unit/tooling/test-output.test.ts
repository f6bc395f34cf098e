/**
 * The test run's own output: a skipped test says why (the reporter prints each reason with its count), and
 * the reliability suites keep their figures out of it (test-artifacts/reliability/).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { skipReason, summarizeSkips } from '../../helpers/skip-reasons-reporter.js';

const TEST_ROOT = fileURLToPath(new URL('../..', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? testFiles(join(dir, entry.name))
      : entry.name.endsWith('.test.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('test output', () => {
  it('summarizes skipped tests by reason, from a skip note or the suite title', () => {
    expect(
      skipReason('storage on Postgres (skipped: TEST_DATABASE_URL is not set) > stores', undefined),
    ).toBe('TEST_DATABASE_URL is not set');
    expect(skipReason('a test', 'no chromium')).toBe('no chromium');
    expect(skipReason('a test', undefined)).toBeUndefined();
    expect(
      summarizeSkips([
        { fullName: 'a (skipped: TEST_DATABASE_URL is not set) > x' },
        { fullName: 'b (skipped: TEST_DATABASE_URL is not set) > y' },
        { fullName: 'c', note: 'no chromium' },
        { fullName: 'd' },
      ]),
    ).toEqual([
      '    2 skipped: TEST_DATABASE_URL is not set',
      '    1 skipped: no chromium',
      '    1 skipped: no reason given',
    ]);
  });

  it('gives every conditional skip a title that names its reason', () => {
    const unnamed: string[] = [];
    let seen = 0;
    for (const file of testFiles(TEST_ROOT)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\.skipIf\([^)]*\)\(\s*([^,]+),/g)) {
        const title = match[1] ?? '';
        seen += 1;
        if (!/SuiteName\(|skipped: /.test(title)) unnamed.push(`${file}: ${title.trim()}`);
      }
    }
    expect(seen).toBeGreaterThan(10);
    expect(unnamed).toEqual([]);
  });

  it('keeps the reliability figures out of the test output', () => {
    const printing = testFiles(join(TEST_ROOT, 'reliability')).filter((file) =>
      /console\.(log|info)\(/.test(readFileSync(file, 'utf8')),
    );
    expect(printing).toEqual([]);
  });
});
