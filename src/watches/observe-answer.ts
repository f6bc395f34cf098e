/**
 * What an answer says about a watched row, and how it differs from what was known. Pure: the cycle
 * (run-cycle.ts) records what this returns.
 *
 * - Job change: the state is the status with the current company (domain, name) and title. `unknown`, a
 *   job that did not succeed, or an answer without its output says nothing: what was known stays known.
 * - Search: the state is the ids of the persons seen so far; a person not seen before is a change.
 */

/** What a job change check last found. */
export interface JobChangeState {
  readonly status: 'moved' | 'left' | 'no_change';
  readonly company_domain: string | null;
  readonly company_name: string | null;
  readonly title: string | null;
}

/** What a search last found: every person id seen (sorted). */
export interface SearchState {
  readonly person_ids: readonly string[];
}

/** A row's memory. */
export type WatchState = JobChangeState | SearchState;

/** The kinds of change. */
export type ChangeKind = 'baseline' | 'moved' | 'left' | 'returned' | 'title' | 'new_person';

/** One change found. */
export interface ObservedChange {
  readonly change: ChangeKind;
  /** Tells two changes of one row in one cycle apart: a person's id, '' for a job change. */
  readonly changeKey: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** What an answer came to: the state to keep (undefined: keep what was known) and the changes. */
export interface Observation {
  readonly state: WatchState | undefined;
  /** True when this was the row's first known state. */
  readonly baseline: boolean;
  readonly changes: readonly ObservedChange[];
}

const NOTHING: Observation = { state: undefined, baseline: false, changes: [] };

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function sameText(a: string | null, b: string | null): boolean {
  return (a ?? '').toLowerCase() === (b ?? '').toLowerCase();
}

/** The job change state an answer's job shows, or undefined when it says nothing known. */
export function jobChangeStateOf(
  job: unknown,
  request: Readonly<Record<string, unknown>>,
): JobChangeState | undefined {
  const envelope = record(job);
  if (envelope?.status !== 'SUCCEEDED') return undefined;
  const output = record(envelope.output);
  const status = output?.job_change_status;
  if (status === 'no_change') {
    // Still at the company asked about: the request names it (the answer's person is {}).
    return {
      status,
      company_domain: text(request.company_domain),
      company_name: null,
      title: null,
    };
  }
  if (status !== 'moved' && status !== 'left') return undefined;
  const person = record(output?.person) ?? {};
  return {
    status,
    company_domain: status === 'left' ? null : text(person.company_domain),
    company_name: status === 'left' ? null : text(person.company_name),
    title: status === 'left' ? null : text(person.title),
  };
}

/** How `after` differs from `before`, or undefined when it does not. */
export function jobChangeKind(before: JobChangeState, after: JobChangeState): ChangeKind | undefined {
  const sameCompany =
    sameText(before.company_domain, after.company_domain) &&
    sameText(before.company_name, after.company_name);
  if (before.status === after.status && sameCompany && sameText(before.title, after.title)) return undefined;
  if (after.status === 'left') return before.status === 'left' ? undefined : 'left';
  if (after.status === 'no_change') return before.status === 'no_change' ? undefined : 'returned';
  // moved: to another company than the one last known (again), or a new title where they are.
  if (before.status !== 'moved' || !sameCompany) return 'moved';
  return 'title';
}

function observeJobChange(
  previous: JobChangeState | undefined,
  job: unknown,
  request: Readonly<Record<string, unknown>>,
  reportBaseline: boolean,
): Observation {
  const state = jobChangeStateOf(job, request);
  if (state === undefined) return NOTHING;
  if (previous === undefined) {
    const changes = reportBaseline
      ? [{ change: 'baseline' as const, changeKey: '', before: null, after: state }]
      : [];
    return { state, baseline: true, changes };
  }
  const kind = jobChangeKind(previous, state);
  return {
    state,
    baseline: false,
    changes: kind === undefined ? [] : [{ change: kind, changeKey: '', before: previous, after: state }],
  };
}

/** A person of a search as a change shows it. */
function personSummary(person: Record<string, unknown>): Record<string, unknown> {
  const keep = ['id', 'first_name', 'last_name', 'title', 'company_name', 'company_domain', 'linkedin_url'];
  return Object.fromEntries(keep.map((key) => [key, person[key] ?? null]));
}

function observeSearch(
  previous: SearchState | undefined,
  job: unknown,
  reportBaseline: boolean,
): Observation {
  const envelope = record(job);
  if (envelope?.status !== 'SUCCEEDED') return NOTHING;
  const persons = record(envelope.output)?.persons;
  if (!Array.isArray(persons)) return NOTHING;
  const seen = new Set(previous?.person_ids ?? []);
  const changes: ObservedChange[] = [];
  for (const item of persons) {
    const person = record(item);
    const id = text(person?.id);
    if (person === undefined || id === null || seen.has(id)) continue;
    seen.add(id);
    if (previous !== undefined || reportBaseline) {
      changes.push({
        change: previous === undefined ? 'baseline' : 'new_person',
        changeKey: id,
        before: null,
        after: personSummary(person),
      });
    }
  }
  return { state: { person_ids: [...seen].sort() }, baseline: previous === undefined, changes };
}

/** What `job` (the answer to `request`) says against `previous`, for a watch of `operation`. */
export function observeAnswer(options: {
  readonly operation: 'job-change' | 'search';
  readonly previous: WatchState | undefined;
  readonly job: unknown;
  readonly request: Readonly<Record<string, unknown>>;
  readonly reportBaseline: boolean;
}): Observation {
  return options.operation === 'job-change'
    ? observeJobChange(
        options.previous as JobChangeState | undefined,
        options.job,
        options.request,
        options.reportBaseline,
      )
    : observeSearch(options.previous as SearchState | undefined, options.job, options.reportBaseline);
}
