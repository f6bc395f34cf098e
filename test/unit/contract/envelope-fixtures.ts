/**
 * Loads the envelope fixtures of test/fixtures/envelopes/ (parsed with parseJsonText, so int64 values
 * stay exact) and edits copies of them for one-mutation tests.
 */
import { readFileSync } from 'node:fs';
import type { JobKind } from '../../../src/contract/enums.js';
import { parseJsonText } from '../../../src/contract/json.js';

/** Every fixture with the kind it is. */
export const ENVELOPE_FIXTURES = {
  'company-reveal': 'company_reveal',
  'company-reveal-empty-company': 'company_reveal',
  'job-change-moved': 'job_change',
  'job-change-left': 'job_change',
  'job-change-no-change': 'job_change',
  'search-contact': 'search_contact',
} as const satisfies Record<string, JobKind>;
export type EnvelopeFixtureName = keyof typeof ENVELOPE_FIXTURES;
export const ENVELOPE_FIXTURE_NAMES = Object.keys(ENVELOPE_FIXTURES) as EnvelopeFixtureName[];

/** The fixture's text, byte for byte. */
export function readEnvelopeFixtureText(name: EnvelopeFixtureName): string {
  return readFileSync(new URL(`../../fixtures/envelopes/${name}.json`, import.meta.url), 'utf8');
}

/** A fresh parsed copy of the fixture. */
export function loadEnvelopeFixture(name: EnvelopeFixtureName): Record<string, unknown> {
  return parseJsonText(readEnvelopeFixtureText(name)) as Record<string, unknown>;
}

/** Marks a member to delete in {@link withChange}. */
export const DELETE = Symbol('delete');

/** A deep copy of `value` with the member at `path` set to `replacement` (or deleted). */
export function withChange(
  value: unknown,
  path: readonly (string | number)[],
  replacement: unknown,
): unknown {
  const copy = structuredClone(value);
  let node: unknown = copy;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
  const last = path[path.length - 1];
  if (last === undefined) return replacement;
  const parent = node as Record<string | number, unknown>;
  if (replacement === DELETE) delete parent[last];
  else parent[last] = replacement;
  return copy;
}
