import { describe, expect, it } from 'vitest';
import {
  checkEnvelopeForKind,
  companyRevealEnvelopeSchema,
  ISO_DATE_TIME_PATTERN,
  jobEnvelopeSchema,
  MAX_ENVELOPE_ISSUES,
  parseJobEnvelope,
  searchContactEnvelopeSchema,
} from '../../../src/contract/envelope.js';
import { contractErrorMap } from '../../../src/contract/validation.js';
import { ValidationError } from '../../../src/errors.js';
import {
  DELETE,
  ENVELOPE_FIXTURE_NAMES,
  ENVELOPE_FIXTURES,
  type EnvelopeFixtureName,
  loadEnvelopeFixture,
  withChange,
} from './envelope-fixtures.js';
import { CR, MUTATIONS, P0, TASK } from './envelope-mutations.js';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function issuesOf(value: unknown, name: EnvelopeFixtureName): string[] {
  const check = checkEnvelopeForKind(value, ENVELOPE_FIXTURES[name]);
  return check.ok ? [] : check.issues;
}

describe('envelope fixtures', () => {
  it.each(ENVELOPE_FIXTURE_NAMES)('%s fits the generic schema and the schema of its kind', (name) => {
    const envelope = loadEnvelopeFixture(name);
    expect(checkEnvelopeForKind(envelope, ENVELOPE_FIXTURES[name])).toEqual({ ok: true });
    expect(checkEnvelopeForKind(envelope, 'unknown')).toEqual({ ok: true });
    expect(parseJobEnvelope(envelope).status).toBe('SUCCEEDED');
  });

  it.each(ENVELOPE_FIXTURE_NAMES)('%s does not fit the schemas of the other kinds', (name) => {
    const envelope = loadEnvelopeFixture(name);
    for (const kind of ['company_reveal', 'job_change', 'search_contact'] as const) {
      if (kind !== ENVELOPE_FIXTURES[name]) expect(checkEnvelopeForKind(envelope, kind).ok).toBe(false);
    }
  });

  it('keeps the int64 total_funding_usd exact and the dates as sent', () => {
    const parsed = companyRevealEnvelopeSchema.parse(loadEnvelopeFixture('company-reveal'));
    if (parsed.status !== 'SUCCEEDED' || !('funding_details' in parsed.output.company))
      throw new Error('shape');
    expect(parsed.output.company.funding_details.total_funding_usd).toBe(9007199254740993n);
    expect(parsed.start_date).toBe('2026-03-04T10:11:12.123456+00:00');
  });
});

describe('one-mutation variants', () => {
  const show = (value: unknown): string =>
    value === DELETE
      ? '(deleted)'
      : typeof value === 'bigint'
        ? `${value}n`
        : JSON.stringify(value).slice(0, 40);
  for (const [name, path, value, issuePath] of MUTATIONS) {
    it(`${name}: ${path.join('.')} = ${show(value)} is flagged at ${issuePath}`, () => {
      const issues = issuesOf(withChange(loadEnvelopeFixture(name), path, value), name);
      expect(issues.length).toBeGreaterThan(0);
      expect(issues.some((issue) => new RegExp(`^${escapeRegExp(issuePath)}[:.[]`).test(issue))).toBe(true);
    });
  }

  it('words the issues plainly', () => {
    const envelope = withChange(
      loadEnvelopeFixture('company-reveal'),
      [...CR, 'funding_details', 'total_funding_usd'],
      'lots',
    );
    expect(issuesOf(envelope, 'company-reveal')).toEqual([
      'output.company.funding_details.total_funding_usd: must be a 64-bit integer',
    ]);
    const noName = withChange(loadEnvelopeFixture('company-reveal'), [...CR, 'name'], DELETE);
    expect(issuesOf(noName, 'company-reveal')).toEqual(['output.company.name: is required']);
  });

  it(`lists at most ${MAX_ENVELOPE_ISSUES} issues`, () => {
    const envelope = loadEnvelopeFixture('search-contact');
    const persons = (envelope.output as { persons: Record<string, unknown>[] }).persons;
    const bad = { ...persons[0], mobile_phone: '+49 30 1234567' };
    const many = withChange(envelope, ['output', 'persons'], Array(30).fill(bad));
    const check = checkEnvelopeForKind(many, 'search_contact');
    if (check.ok) throw new Error('expected issues');
    expect(check.issues).toHaveLength(MAX_ENVELOPE_ISSUES);
    expect(check.issues.at(-1)).toBe('... and 11 more');
  });
});

describe('unknown members', () => {
  it('pass through every level untouched', () => {
    let envelope: unknown = loadEnvelopeFixture('search-contact');
    const places: (string | number)[][] = [
      [],
      ['input'],
      TASK,
      ['output'],
      P0,
      [...P0, 'experiences', 0],
      ['output', 'usage'],
    ];
    for (const place of places)
      envelope = withChange(envelope, [...place, 'x_added_in_1_7'], { kept: [1, 2n] });
    const parsed = searchContactEnvelopeSchema.parse(envelope, { error: contractErrorMap });
    let node: unknown = parsed;
    for (const place of places) {
      node = parsed;
      for (const key of place) node = (node as Record<string | number, unknown>)[key];
      expect((node as Record<string, unknown>).x_added_in_1_7).toEqual({ kept: [1, 2n] });
    }
  });
});

describe('RUNNING and other unfinished envelopes', () => {
  const running = (name: EnvelopeFixtureName, ...changes: [(string | number)[], unknown][]): unknown => {
    let envelope = withChange(loadEnvelopeFixture(name), ['status'], 'RUNNING');
    for (const [path, value] of changes) envelope = withChange(envelope, path, value);
    return envelope;
  };

  it.each(ENVELOPE_FIXTURE_NAMES)('%s: RUNNING without output or stop_date is not flagged', (name) => {
    const envelope = running(name, [['output'], DELETE], [['stop_date'], DELETE]);
    expect(checkEnvelopeForKind(envelope, ENVELOPE_FIXTURES[name])).toEqual({ ok: true });
    expect(parseJobEnvelope(envelope).output).toBeUndefined();
  });

  it.each(ENVELOPE_FIXTURE_NAMES)('%s: RUNNING with output and stop_date null is not flagged', (name) => {
    const envelope = running(name, [['output'], null], [['stop_date'], null]);
    expect(checkEnvelopeForKind(envelope, ENVELOPE_FIXTURES[name])).toEqual({ ok: true });
  });

  it('accepts partial outputs while RUNNING', () => {
    const usageOnly = (name: EnvelopeFixtureName) => {
      const usage = (loadEnvelopeFixture(name).output as Record<string, unknown>).usage;
      return running(name, [['output'], { usage }], [['stop_date'], DELETE]);
    };
    expect(checkEnvelopeForKind(usageOnly('company-reveal'), 'company_reveal')).toEqual({ ok: true });
    expect(checkEnvelopeForKind(usageOnly('job-change-moved'), 'job_change')).toEqual({ ok: true });
    expect(checkEnvelopeForKind(usageOnly('search-contact'), 'search_contact')).toEqual({ ok: true });
    expect(
      checkEnvelopeForKind(running('search-contact', [['output'], { persons: [] }]), 'search_contact'),
    ).toEqual({
      ok: true,
    });
    const statusOnly = running('job-change-moved', [['output'], { job_change_status: 'moved' }]);
    expect(checkEnvelopeForKind(statusOnly, 'job_change')).toEqual({ ok: true });
    const ipOnly = running('company-reveal', [['output'], { ip: '203.0.113.42', company: {} }]);
    expect(checkEnvelopeForKind(ipOnly, 'company_reveal')).toEqual({ ok: true });
  });

  it('still flags a partial output member that breaks its rule', () => {
    const envelope = running('search-contact', [['output'], { persons: [{ id: 'nope', experiences: [] }] }]);
    expect(checkEnvelopeForKind(envelope, 'search_contact')).toEqual({
      ok: false,
      issues: ['output.persons[0].id: must be a UUID'],
    });
    const badTask = running('company-reveal', [['output'], DELETE], [[...TASK, 'ip'], 'localhost']);
    expect(checkEnvelopeForKind(badTask, 'company_reveal').ok).toBe(false);
  });

  it.each(['FAILED', 'TIMED_OUT', 'ABORTED'])('%s may come without output', (status) => {
    const envelope = withChange(
      withChange(loadEnvelopeFixture('job-change-moved'), ['status'], status),
      ['output'],
      DELETE,
    );
    expect(checkEnvelopeForKind(envelope, 'job_change')).toEqual({ ok: true });
  });
});

describe('parseJobEnvelope', () => {
  const bad: [string, unknown, string][] = [
    ['null', null, 'body'],
    ['an array', [], 'body'],
    ['an empty object', {}, 'status'],
    ['no task', { status: 'RUNNING', start_date: '2026-03-04T10:11:12+00:00', input: {} }, 'input.task'],
    [
      'a task array',
      { status: 'RUNNING', start_date: '2026-03-04T10:11:12Z', input: { task: [] } },
      'input.task',
    ],
    [
      'an unknown status',
      { status: 'PENDING', start_date: '2026-03-04T10:11:12Z', input: { task: {} } },
      'status',
    ],
    [
      'an output array',
      { status: 'RUNNING', start_date: '2026-03-04T10:11:12Z', input: { task: {} }, output: [] },
      'output',
    ],
  ];
  it.each(bad)('refuses %s with VALIDATION_BAD_REQUEST naming %s', (_label, value, path) => {
    try {
      parseJobEnvelope(value);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe('VALIDATION_BAD_REQUEST');
      expect((error as ValidationError).issues.some((i) => i.startsWith(`${path}: `))).toBe(true);
    }
  });

  it('accepts a minimal RUNNING envelope and keeps unknown members', () => {
    const envelope = {
      status: 'RUNNING',
      start_date: '2026-03-04T10:11:12Z',
      input: { task: { a: 1 } },
      extra: true,
    };
    expect(parseJobEnvelope(envelope)).toEqual(envelope);
    expect(jobEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });
});

describe('ISO_DATE_TIME_PATTERN', () => {
  it.each([
    '2026-03-04T10:11:12.123456+00:00',
    '2026-03-04T10:11:12+00:00',
    '2026-03-04T10:11:12Z',
    '2026-03-04T10:11:12.1-05:30',
    '2024-02-29T23:59:59.999999+14:00',
  ])('accepts %s', (value) => {
    expect(ISO_DATE_TIME_PATTERN.test(value)).toBe(true);
  });
  it.each([
    '2026-03-04T10:11:12.123456',
    '2026-03-04T10:11:12.1234567+00:00',
    '2026-03-04T10:11+00:00',
    '2026-03-04 10:11:12+00:00',
    '2026-03-04T24:00:00+00:00',
    '2026-03-04T10:11:12+0000',
    '2026-03-04T10:11:12.+00:00',
    '2026-13-04T10:11:12Z',
    '2026-03-04',
  ])('refuses %s', (value) => {
    expect(ISO_DATE_TIME_PATTERN.test(value)).toBe(false);
  });
});
