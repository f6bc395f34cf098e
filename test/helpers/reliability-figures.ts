/**
 * Where the reliability suites put their figures (counts by outcome, chaos tallies): a JSON file per
 * suite under test-artifacts/reliability/, not the test output. HOOKSYNC_RELIABILITY_PRINT=1 prints them too.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the figure files. */
export const RELIABILITY_FIGURES_DIR = fileURLToPath(
  new URL('../../test-artifacts/reliability/', import.meta.url),
);

/** Writes `figures` to test-artifacts/reliability/<name>.json (and prints them when asked to). */
export function recordReliabilityFigures(name: string, figures: unknown): string {
  mkdirSync(RELIABILITY_FIGURES_DIR, { recursive: true });
  const file = join(RELIABILITY_FIGURES_DIR, `${name}.json`);
  const text = `${JSON.stringify(figures, null, 2)}\n`;
  writeFileSync(file, text);
  if (process.env.HOOKSYNC_RELIABILITY_PRINT === '1') process.stdout.write(`${name}:\n${text}`);
  return file;
}
