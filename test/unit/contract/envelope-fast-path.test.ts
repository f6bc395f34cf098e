/**
 * checkEnvelopeForKind answers a fitting envelope with zod's compiled validator and everything else with
 * zod's ordinary parse. These tests hold the two to the same verdict and the issues to the same words.
 */
import { describe, expect, it } from 'vitest';
import type { JobKind } from '../../../src/contract/enums.js';
import {
  checkEnvelopeForKind,
  companyRevealEnvelopeSchema,
  type EnvelopeCheck,
  jobChangeEnvelopeSchema,
  jobEnvelopeSchema,
  MAX_ENVELOPE_ISSUES,
  searchContactEnvelopeSchema,
} from '../../../src/contract/envelope.js';
import { contractErrorMap, formatZodIssues } from '../../../src/contract/validation.js';
import {
  DELETE,
  ENVELOPE_FIXTURE_NAMES,
  ENVELOPE_FIXTURES,
  loadEnvelopeFixture,
  withChange,
} from './envelope-fixtures.js';
import { FITTING_CHANGES, MUTATIONS, P0 } from './envelope-mutations.js';

const KINDS: readonly JobKind[] = ['company_reveal', 'job_change', 'search_contact', 'unknown'];
const SCHEMAS = {
  company_reveal: companyRevealEnvelopeSchema,
  job_change: jobChangeEnvelopeSchema,
  search_contact: searchContactEnvelopeSchema,
  unknown: jobEnvelopeSchema,
} as const;

/** What zod's ordinary (interpreted) parse says, in the shape checkEnvelopeForKind answers. */
function interpreted(value: unknown, kind: JobKind): EnvelopeCheck {
  const result = SCHEMAS[kind].safeParse(value, { error: contractErrorMap });
  if (result.success) return { ok: true };
  const issues = formatZodIssues(result.error);
  if (issues.length <= MAX_ENVELOPE_ISSUES) return { ok: false, issues };
  const shown = issues.slice(0, MAX_ENVELOPE_ISSUES - 1);
  return { ok: false, issues: [...shown, `... and ${issues.length - shown.length} more`] };
}

/** Every envelope the contract tables know: the fixtures, their mutations, their edge-of-rule changes. */
function* corpus(): Generator<[label: string, envelope: unknown]> {
  for (const name of ENVELOPE_FIXTURE_NAMES) {
    const envelope = loadEnvelopeFixture(name);
    yield [name, envelope];
    for (const status of ['RUNNING', 'FAILED', 'TIMED_OUT', 'ABORTED', 'DONE', 7]) {
      yield [`${name} ${status}`, withChange(envelope, ['status'], status)];
    }
    yield [`${name} without status`, withChange(envelope, ['status'], DELETE)];
  }
  for (const [name, path, value] of MUTATIONS) {
    yield [`${name} ${path.join('.')} (flagged)`, withChange(loadEnvelopeFixture(name), path, value)];
  }
  for (const [name, path, value] of FITTING_CHANGES) {
    yield [`${name} ${path.join('.')} (fits)`, withChange(loadEnvelopeFixture(name), path, value)];
  }
  for (const value of [null, undefined, [], 'SUCCEEDED', {}, { status: 'SUCCEEDED' }]) {
    yield [JSON.stringify(value) ?? 'undefined', value];
  }
}

describe('checkEnvelopeForKind and the interpreted parse', () => {
  it('give the same verdict and issues on every envelope of the tables, for every kind, on every call', () => {
    const mismatches: string[] = [];
    let fits = 0;
    let flagged = 0;
    for (const [label, envelope] of corpus()) {
      for (const kind of KINDS) {
        const expected = interpreted(envelope, kind);
        // The first call compiles the kind's validator; later calls must not answer differently.
        for (let call = 0; call < 2; call++) {
          const actual = checkEnvelopeForKind(envelope, kind);
          if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push(`${label} as ${kind}`);
        }
        if (expected.ok) fits++;
        else flagged++;
      }
    }
    expect(mismatches).toEqual([]);
    // Both answers were exercised, many times over.
    expect(fits).toBeGreaterThan(60);
    expect(flagged).toBeGreaterThan(300);
  });

  it.each(FITTING_CHANGES)('%s: %j = %j still fits', (name, path, value) => {
    const envelope = withChange(loadEnvelopeFixture(name), path, value);
    expect(checkEnvelopeForKind(envelope, ENVELOPE_FIXTURES[name])).toEqual({ ok: true });
  });
});

describe('issue wording of the date, date-time and UUID rules', () => {
  const DATE_TIME_RULE =
    'must be an ISO 8601 date-time with seconds and an offset, e.g. 2026-03-04T10:11:12.123456+00:00';
  const cases: [
    name: keyof typeof ENVELOPE_FIXTURES,
    path: (string | number)[],
    value: unknown,
    issue: string,
  ][] = [
    ['company-reveal', ['start_date'], '2026-02-29T10:11:12Z', `start_date: ${DATE_TIME_RULE}`],
    ['company-reveal', ['stop_date'], 1772619073, 'stop_date: must be an ISO 8601 date-time string'],
    ['company-reveal', ['stop_date'], DELETE, 'stop_date: is required'],
    [
      'search-contact',
      [...P0, 'experiences', 1, 'end_date'],
      '2023-04-31',
      'output.persons[0].experiences[1].end_date: must be a real calendar date YYYY-MM-DD',
    ],
    [
      'search-contact',
      [...P0, 'experiences', 1, 'end_date'],
      20230430,
      'output.persons[0].experiences[1].end_date: must be a date YYYY-MM-DD',
    ],
    ['search-contact', [...P0, 'id'], 'lena', 'output.persons[0].id: must be a UUID'],
    ['search-contact', [...P0, 'id'], 42, 'output.persons[0].id: must be a UUID'],
    ['search-contact', ['input', 'task', 'context_id'], DELETE, 'input.task.context_id: is required'],
  ];
  it.each(cases)('%s: %j = %j reads %j', (name, path, value, issue) => {
    const envelope = withChange(loadEnvelopeFixture(name), path, value);
    expect(checkEnvelopeForKind(envelope, ENVELOPE_FIXTURES[name])).toEqual({ ok: false, issues: [issue] });
  });
});

describe('a full page of 250 persons', () => {
  const page = (): Record<string, unknown> => {
    const envelope = loadEnvelopeFixture('search-contact');
    const output = envelope.output as { persons: Record<string, unknown>[] };
    const persons = Array.from({ length: 250 }, (_, i) => ({
      ...structuredClone(output.persons[i % output.persons.length]),
      id: `c07c8b9a-a3b4-45c6-94a7-${String(i).padStart(12, '0')}`,
    }));
    return withChange(envelope, ['output', 'persons'], persons) as Record<string, unknown>;
  };

  it('fits, and a single bad date on its last person is named', () => {
    expect(checkEnvelopeForKind(page(), 'search_contact')).toEqual({ ok: true });
    const bad = withChange(page(), ['output', 'persons', 249, 'experiences', 0, 'start_date'], '2023-02-29');
    expect(checkEnvelopeForKind(bad, 'search_contact')).toEqual({
      ok: false,
      issues: ['output.persons[249].experiences[0].start_date: must be a real calendar date YYYY-MM-DD'],
    });
  });
});
