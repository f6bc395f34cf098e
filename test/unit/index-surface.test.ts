/**
 * The public surface stays small and documented: at most 40 runtime values in `src/index.ts`, each listed
 * in README's library section, and that section lists nothing the entry does not export.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as surface from '../../src/index.js';

const MAX_VALUES = 40;

function librarySection(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split('\n## Using it as a library\n')[1]?.split('\n## ')[0];
  if (section === undefined) throw new Error('README.md has no "Using it as a library" section');
  return section;
}

/** The names in backticks on the section's list lines (a list item and its continuation lines). */
function listedNames(section: string): Set<string> {
  const lines: string[] = [];
  let inItem = false;
  for (const line of section.split('\n')) {
    if (line.startsWith('- ')) inItem = true;
    else if (!line.startsWith('  ')) inItem = false;
    if (inItem) lines.push(line);
  }
  return new Set([...lines.join('\n').matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1] ?? ''));
}

describe('src/index.ts', () => {
  const values = Object.keys(surface).sort();

  it(`exports at most ${MAX_VALUES} runtime values`, () => {
    expect(values.length).toBeGreaterThan(0);
    expect(values.length).toBeLessThanOrEqual(MAX_VALUES);
  });

  it("lists every value in README's library section, and only those", () => {
    const listed = listedNames(librarySection());
    expect(values.filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !values.includes(name)).sort()).toEqual([]);
  });

  it('keeps the simulator behind its subpath', async () => {
    expect(values.some((name) => /simulator/i.test(name))).toBe(false);
    const simulator = await import('../../src/simulator.js');
    expect(Object.keys(simulator)).toEqual(['createSimulator']);
  });
});
