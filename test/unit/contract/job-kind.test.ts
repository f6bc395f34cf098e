import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JOB_KINDS } from '../../../src/contract/enums.js';
import { claimedJobId, detectJobKind } from '../../../src/contract/job-kind.js';
import {
  DELETE,
  ENVELOPE_FIXTURE_NAMES,
  ENVELOPE_FIXTURES,
  loadEnvelopeFixture,
  withChange,
} from './envelope-fixtures.js';

const running = (envelope: unknown): unknown =>
  withChange(
    withChange(withChange(envelope, ['status'], 'RUNNING'), ['output'], DELETE),
    ['stop_date'],
    DELETE,
  );

describe('detectJobKind', () => {
  it.each(ENVELOPE_FIXTURE_NAMES)('classifies %s', (name) => {
    expect(detectJobKind(loadEnvelopeFixture(name))).toBe(ENVELOPE_FIXTURES[name]);
  });

  it.each(ENVELOPE_FIXTURE_NAMES)(
    'classifies %s while RUNNING without output, from the task alone',
    (name) => {
      expect(detectJobKind(running(loadEnvelopeFixture(name)))).toBe(ENVELOPE_FIXTURES[name]);
    },
  );

  it.each(ENVELOPE_FIXTURE_NAMES)('classifies %s from the output alone', (name) => {
    expect(detectJobKind(withChange(loadEnvelopeFixture(name), ['input'], DELETE))).toBe(
      ENVELOPE_FIXTURES[name],
    );
  });

  const task = (t: Record<string, unknown>) => ({ status: 'RUNNING', input: { task: t } });
  const ids = {
    job_id: 'bf6b7a8f-92a3-44b5-83f6-5a4b3c2d1eb7',
    context_id: '5f4a3b2c-1d0e-4f9a-8b7c-6d5e7f8091a2',
    custom_fields: {},
  };
  it.each([
    ['a reveal task', { ip: '1.2.3.4', webhook_url: null, ...ids }, 'company_reveal'],
    [
      'a job change task with nulls',
      {
        company_domain: null,
        company_linkedin: null,
        professional_email: null,
        personal_email: null,
        contact_linkedin: 'x',
        contact_full_name: null,
        ...ids,
      },
      'job_change',
    ],
    ['a job change task by email only', { professional_email: 'a@b.co', ...ids }, 'job_change'],
    [
      'a contact search (mode 1) with paging',
      { contact_linkedin: 'jane', page_number: 1, page_size: 10, ...ids },
      'search_contact',
    ],
    ['a contact search with only contact_linkedin', { contact_linkedin: 'jane', ...ids }, 'search_contact'],
    ['a company search by LinkedIn only', { company_linkedin: 'acme', ...ids }, 'search_contact'],
    ['a company search by domain', { domain: 'acme.com', ...ids }, 'search_contact'],
    [
      'a company-set search',
      { company_industries: ['Banking'], title_filters: [], ...ids },
      'search_contact',
    ],
    ['a task of ids only', ids, 'unknown'],
    ['an empty task', {}, 'unknown'],
    ['a task mixing reveal and search members', { ip: '1.2.3.4', page_size: 10 }, 'unknown'],
    ['a task mixing job change and search members', { company_domain: 'a.com', seniorities: [] }, 'unknown'],
  ])('reads %s', (_label, t, kind) => {
    expect(detectJobKind(task(t))).toBe(kind);
  });

  it('reads partial outputs of RUNNING jobs', () => {
    expect(detectJobKind({ status: 'RUNNING', input: { task: {} }, output: { persons: [] } })).toBe(
      'search_contact',
    );
    expect(
      detectJobKind({ status: 'RUNNING', input: { task: {} }, output: { job_change_status: 'moved' } }),
    ).toBe('job_change');
    expect(detectJobKind({ status: 'RUNNING', output: { ip_geo: {} } })).toBe('company_reveal');
    expect(
      detectJobKind({ status: 'RUNNING', input: { task: { ip: '1.2.3.4' } }, output: { usage: {} } }),
    ).toBe('company_reveal');
  });

  it('answers unknown when output and task disagree or the output is mixed', () => {
    const reveal = loadEnvelopeFixture('company-reveal');
    expect(detectJobKind(withChange(reveal, ['output', 'persons'], []))).toBe('unknown');
    expect(
      detectJobKind(withChange(reveal, ['input', 'task'], loadEnvelopeFixture('search-contact').input)),
    ).toBe('company_reveal');
    const searchTask = (loadEnvelopeFixture('search-contact').input as { task: unknown }).task;
    expect(detectJobKind(withChange(reveal, ['input', 'task'], searchTask))).toBe('unknown');
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'company_reveal'],
    ['a number', 42],
    ['an array', [loadEnvelopeFixture('company-reveal')]],
    ['an empty object', {}],
    ['input as a string', { input: 'task' }],
    ['task as an array', { input: { task: [] } }],
    ['output as an array', { output: [] }],
    ['persons not an array', { output: { persons: {} } }],
  ])('answers unknown for %s', (_label, value) => {
    expect(detectJobKind(value)).toBe('unknown');
  });

  it('never throws and always answers a kind, for any JSON value', () => {
    const kinds: readonly string[] = JOB_KINDS;
    const envelopeLike = fc.record(
      {
        status: fc.constantFrom('RUNNING', 'SUCCEEDED', 'FAILED'),
        input: fc.oneof(
          fc.jsonValue(),
          fc.record({
            task: fc.oneof(
              fc.jsonValue(),
              fc.dictionary(
                fc.constantFrom('ip', 'page_size', 'company_domain', 'contact_linkedin', 'job_id'),
                fc.jsonValue(),
              ),
            ),
          }),
        ),
        output: fc.oneof(
          fc.jsonValue(),
          fc.dictionary(fc.constantFrom('persons', 'ip_geo', 'job_change_status', 'usage'), fc.jsonValue()),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), envelopeLike), (value) => {
        expect(kinds).toContain(detectJobKind(value));
        claimedJobId(value);
      }),
      { numRuns: 500 },
    );
  });
});

describe('claimedJobId', () => {
  it('reads input.task.job_id of every fixture', () => {
    expect(claimedJobId(loadEnvelopeFixture('company-reveal'))).toBe('6f1c2b3a-4d5e-4f60-8a71-9b8c7d6e5f40');
    expect(claimedJobId(loadEnvelopeFixture('search-contact'))).toBe('bf6b7a8f-92a3-44b5-83f6-5a4b3c2d1eb7');
  });

  it.each([
    ['null', null],
    ['no input', { status: 'RUNNING' }],
    ['no task', { input: {} }],
    ['a numeric job_id', { input: { task: { job_id: 42 } } }],
    ['a job_id elsewhere', { job_id: 'x', input: { task: {} } }],
  ])('is undefined for %s', (_label, value) => {
    expect(claimedJobId(value)).toBeUndefined();
  });

  it('returns a string job_id as it is, unverified', () => {
    expect(claimedJobId({ input: { task: { job_id: 'not-a-uuid' } } })).toBe('not-a-uuid');
  });
});
