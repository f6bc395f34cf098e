import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type JobChangeState,
  jobChangeKind,
  jobChangeStateOf,
  observeAnswer,
  type SearchState,
} from '../../../src/watches/observe-answer.js';

function succeeded(output: unknown): unknown {
  return { status: 'SUCCEEDED', output };
}

function jobChange(status: string, person: unknown = {}): unknown {
  return succeeded({ job_change_status: status, person });
}

function search(persons: unknown): unknown {
  return succeeded({ persons });
}

const ACME = { company_domain: 'acme.com', company_name: 'Acme', title: 'CTO' };

function state(
  status: JobChangeState['status'],
  company_domain: string | null = null,
  company_name: string | null = null,
  title: string | null = null,
): JobChangeState {
  return { status, company_domain, company_name, title };
}

describe('jobChangeStateOf', () => {
  it('says nothing of a job that did not succeed, has no output, or an unknown status', () => {
    for (const job of [
      null,
      [],
      'SUCCEEDED',
      { status: 'RUNNING', output: { job_change_status: 'moved', person: ACME } },
      { status: 'FAILED', output: { job_change_status: 'left' } },
      { status: 'SUCCEEDED' },
      { status: 'SUCCEEDED', output: [] },
      jobChange('unknown', ACME),
      jobChange('MOVED', ACME),
      succeeded({ person: ACME }),
    ]) {
      expect(jobChangeStateOf(job, {})).toBeUndefined();
    }
  });

  it('takes a move from the answer’s person, trimmed, a blank or missing field as null', () => {
    expect(jobChangeStateOf(jobChange('moved', ACME), {})).toEqual(state('moved', 'acme.com', 'Acme', 'CTO'));
    expect(
      jobChangeStateOf(
        jobChange('moved', { company_domain: '  acme.com ', company_name: '   ', title: 7 }),
        {},
      ),
    ).toEqual(state('moved', 'acme.com'));
    expect(jobChangeStateOf(jobChange('moved', null), {})).toEqual(state('moved'));
    expect(jobChangeStateOf(succeeded({ job_change_status: 'moved' }), {})).toEqual(state('moved'));
  });

  it('keeps nothing of a person who left, whatever the answer names', () => {
    expect(jobChangeStateOf(jobChange('left', ACME), {})).toEqual(state('left'));
  });

  it('takes a person still there at the company the request asked about (the answer’s person is empty)', () => {
    const request = { company_domain: ' initech.com ', professional_email: 'a@initech.com' };
    expect(jobChangeStateOf(jobChange('no_change', ACME), request)).toEqual(
      state('no_change', 'initech.com'),
    );
    expect(jobChangeStateOf(jobChange('no_change'), { company_domain: 42 })).toEqual(state('no_change'));
    expect(jobChangeStateOf(jobChange('no_change'), {})).toEqual(state('no_change'));
  });
});

describe('jobChangeKind', () => {
  it('finds no change between states that differ only in case or in null against blank', () => {
    expect(
      jobChangeKind(state('moved', 'Acme.com', 'ACME', 'cto'), state('moved', 'acme.com', 'Acme', 'CTO')),
    ).toBe(undefined);
    expect(jobChangeKind(state('left'), state('left'))).toBeUndefined();
    expect(jobChangeKind(state('no_change', 'acme.com'), state('no_change', 'acme.com'))).toBeUndefined();
  });

  it('says left once, whatever was known before', () => {
    expect(jobChangeKind(state('moved', 'acme.com', 'Acme', 'CTO'), state('left'))).toBe('left');
    expect(jobChangeKind(state('no_change', 'acme.com'), state('left'))).toBe('left');
  });

  it('says returned when a person is found back at the company asked about, once', () => {
    expect(jobChangeKind(state('left'), state('no_change', 'acme.com'))).toBe('returned');
    expect(jobChangeKind(state('moved', 'initech.com'), state('no_change', 'acme.com'))).toBe('returned');
    // Asked about another company and still there: the request changed, the person did not.
    expect(jobChangeKind(state('no_change', 'acme.com'), state('no_change', 'initech.com'))).toBeUndefined();
  });

  it('says moved for a move from anywhere else, and title for a new title where they already are', () => {
    expect(jobChangeKind(state('no_change', 'acme.com'), state('moved', 'acme.com'))).toBe('moved');
    expect(jobChangeKind(state('left'), state('moved', 'acme.com', 'Acme'))).toBe('moved');
    expect(
      jobChangeKind(state('moved', 'acme.com', 'Acme', 'CTO'), state('moved', 'initech.com', 'Acme', 'CTO')),
    ).toBe('moved');
    expect(
      jobChangeKind(state('moved', 'acme.com', 'Acme', 'CTO'), state('moved', 'acme.com', 'Acme Inc', 'CTO')),
    ).toBe('moved');
    expect(
      jobChangeKind(state('moved', 'acme.com', 'Acme', 'CTO'), state('moved', 'acme.com', 'Acme', 'CEO')),
    ).toBe('title');
    expect(
      jobChangeKind(state('moved', 'acme.com', 'Acme', null), state('moved', 'acme.com', 'Acme', 'CEO')),
    ).toBe('title');
  });

  const anyState = fc.record({
    status: fc.constantFrom('moved' as const, 'left' as const, 'no_change' as const),
    company_domain: fc.option(fc.constantFrom('acme.com', 'ACME.com', 'initech.com', ''), { nil: null }),
    company_name: fc.option(fc.constantFrom('Acme', 'acme', 'Initech'), { nil: null }),
    title: fc.option(fc.constantFrom('CTO', 'cto', 'CEO'), { nil: null }),
  });

  it('finds no change from a state to itself, and only the kinds the status allows', () => {
    fc.assert(
      fc.property(anyState, anyState, (before, after) => {
        expect(jobChangeKind(before, before)).toBeUndefined();
        const kind = jobChangeKind(before, after);
        const allowed = { left: ['left'], no_change: ['returned'], moved: ['moved', 'title'] }[after.status];
        if (kind !== undefined) expect(allowed).toContain(kind);
        // A status that did not change is never reported as that status again.
        if (before.status === after.status && after.status !== 'moved') expect(kind).toBeUndefined();
      }),
    );
  });
});

describe('observeAnswer, job change', () => {
  const observe = (previous: JobChangeState | undefined, job: unknown, reportBaseline = false) =>
    observeAnswer({
      operation: 'job-change',
      previous,
      job,
      request: { company_domain: 'acme.com' },
      reportBaseline,
    });

  it('keeps what was known when the answer says nothing', () => {
    const known = state('moved', 'initech.com');
    for (const job of [{ status: 'FAILED' }, jobChange('unknown'), succeeded(undefined)]) {
      expect(observe(known, job)).toEqual({ state: undefined, baseline: false, changes: [] });
      expect(observe(undefined, job, true)).toEqual({ state: undefined, baseline: false, changes: [] });
    }
  });

  it('takes a first state as the baseline, reported as a change only when asked', () => {
    const first = state('no_change', 'acme.com');
    expect(observe(undefined, jobChange('no_change'))).toEqual({ state: first, baseline: true, changes: [] });
    expect(observe(undefined, jobChange('no_change'), true)).toEqual({
      state: first,
      baseline: true,
      changes: [{ change: 'baseline', changeKey: '', before: null, after: first }],
    });
  });

  it('reports a change against the state known, with both states', () => {
    const before = state('no_change', 'acme.com');
    const after = state('moved', 'initech.com', 'Initech', 'VP');
    const job = jobChange('moved', { company_domain: 'initech.com', company_name: 'Initech', title: 'VP' });
    expect(observe(before, job, true)).toEqual({
      state: after,
      baseline: false,
      changes: [{ change: 'moved', changeKey: '', before, after }],
    });
  });

  it('keeps the new state without a change when nothing differs but case', () => {
    const before = state('moved', 'INITECH.COM', 'initech', 'vp');
    const job = jobChange('moved', { company_domain: 'initech.com', company_name: 'Initech', title: 'VP' });
    expect(observe(before, job)).toEqual({
      state: state('moved', 'initech.com', 'Initech', 'VP'),
      baseline: false,
      changes: [],
    });
  });
});

describe('observeAnswer, search', () => {
  const observe = (previous: SearchState | undefined, job: unknown, reportBaseline = false) =>
    observeAnswer({ operation: 'search', previous, job, request: {}, reportBaseline });
  const person = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    first_name: `F${id}`,
    ...extra,
  });
  const summary = (id: string) => ({
    id,
    first_name: `F${id}`,
    last_name: null,
    title: null,
    company_name: null,
    company_domain: null,
    linkedin_url: null,
  });

  it('says nothing of a search that did not succeed or lists no persons', () => {
    for (const job of [{ status: 'RUNNING' }, succeeded({}), search('p1'), search({ p1: {} })]) {
      expect(observe({ person_ids: ['p1'] }, job)).toEqual({
        state: undefined,
        baseline: false,
        changes: [],
      });
    }
  });

  it('takes the first persons seen as the baseline, each reported as one when asked', () => {
    const job = search([person('p2'), person('p1')]);
    expect(observe(undefined, job)).toEqual({
      state: { person_ids: ['p1', 'p2'] },
      baseline: true,
      changes: [],
    });
    const reported = observe(undefined, job, true);
    expect(reported.changes.map((change) => [change.change, change.changeKey])).toEqual([
      ['baseline', 'p2'],
      ['baseline', 'p1'],
    ]);
    expect(observe(undefined, search([]))).toEqual({
      state: { person_ids: [] },
      baseline: true,
      changes: [],
    });
  });

  it('reports each person not seen before once, as the summary of their fields', () => {
    const job = search([
      person('p1'),
      person('p3', { last_name: 'L', secret: 'dropped', linkedin_url: 'https://linkedin.com/in/p3' }),
      person('p3'),
      person('p4'),
    ]);
    const observation = observe({ person_ids: ['p1', 'p2'] }, job);
    expect(observation.state).toEqual({ person_ids: ['p1', 'p2', 'p3', 'p4'] });
    expect(observation.baseline).toBe(false);
    expect(observation.changes).toEqual([
      {
        change: 'new_person',
        changeKey: 'p3',
        before: null,
        after: { ...summary('p3'), last_name: 'L', linkedin_url: 'https://linkedin.com/in/p3' },
      },
      { change: 'new_person', changeKey: 'p4', before: null, after: summary('p4') },
    ]);
  });

  it('skips entries that are not persons or name no id', () => {
    const job = search([null, 'p9', [], { first_name: 'X' }, { id: '  ' }, { id: 5 }, person(' p5 ')]);
    expect(observe({ person_ids: [] }, job)).toMatchObject({
      state: { person_ids: ['p5'] },
      changes: [{ change: 'new_person', changeKey: 'p5' }],
    });
  });

  const ids = fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 6 });

  it('keeps the sorted union of ids, reports exactly the ids not known, and finds nothing on a second look', () => {
    fc.assert(
      fc.property(ids, fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g')), (known, answered) => {
        const previous = { person_ids: [...known].sort() };
        const job = search(answered.map((id) => person(id)));
        const observation = observe(previous, job);
        const union = [...new Set([...known, ...answered])].sort();
        expect(observation.state).toEqual({ person_ids: union });
        const fresh = [...new Set(answered.filter((id) => !known.includes(id)))];
        expect(observation.changes.map((change) => change.changeKey)).toEqual(fresh);
        expect(observation.changes.every((change) => change.change === 'new_person')).toBe(true);
        const again = observe(observation.state as SearchState, job);
        expect(again.changes).toEqual([]);
        expect(again.state).toEqual(observation.state);
      }),
    );
  });
});
