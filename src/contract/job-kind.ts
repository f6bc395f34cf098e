/**
 * Which operation produced an envelope, read from its shape: the interface's envelopes carry no kind
 * or event-type field ("Named kinds of event and any event type field in the payload: not shown").
 */
import { isPlainObject } from './custom-fields.js';
import type { JobKind } from './enums.js';

/** Task members only a Company Reveal task has. */
const REVEAL_TASK_KEYS = ['ip'] as const;
/** Task members only a Job Change task has (it echoes all six contact fields, null or not). */
const JOB_CHANGE_TASK_KEYS = [
  'company_domain',
  'professional_email',
  'personal_email',
  'contact_full_name',
] as const;
/**
 * Task members only a Search Contact task has. contact_linkedin and company_linkedin are left out:
 * both operations take them.
 */
const SEARCH_TASK_KEYS = [
  'page_number',
  'page_size',
  'domain',
  'company_name',
  'title_filters',
  'title_lists',
  'departments',
  'seniorities',
  'location_countries',
  'company_location_countries',
  'company_industries',
  'company_employee_ranges',
  'excluded_names',
  'included_names',
  'experience_start_date',
  'experience_start_date_new_hire',
] as const;

function hasAny(object: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.some((key) => Object.hasOwn(object, key));
}

/** Several signals that contradict each other. */
const MIXED = 'mixed';
type Reading = JobKind | typeof MIXED | undefined;

/** The single kind that `signals` point to; undefined when none, MIXED when several. */
function single(signals: ReadonlyArray<[JobKind, boolean]>): Reading {
  const kinds = signals.filter(([, on]) => on).map(([kind]) => kind);
  return kinds.length > 1 ? MIXED : kinds[0];
}

function kindOfOutput(output: Record<string, unknown>): Reading {
  return single([
    ['company_reveal', hasAny(output, ['ip_geo', 'confidence_score'])],
    ['job_change', hasAny(output, ['job_change_status'])],
    ['search_contact', Array.isArray(output.persons)],
  ]);
}

function kindOfTask(task: Record<string, unknown>): Reading {
  const kind = single([
    ['company_reveal', hasAny(task, REVEAL_TASK_KEYS)],
    ['job_change', hasAny(task, JOB_CHANGE_TASK_KEYS)],
    ['search_contact', hasAny(task, SEARCH_TASK_KEYS)],
  ]);
  if (kind !== undefined) return kind;
  // Only the shared LinkedIn members: a Job Change task echoes its other four fields even when null,
  // so their absence means a contact (mode 1) or company (mode 2) search.
  return hasAny(task, ['contact_linkedin', 'company_linkedin']) ? 'search_contact' : undefined;
}

/**
 * The kind of an envelope, from input.task and output. Output members decide (ip_geo /
 * confidence_score, job_change_status, a persons array); a RUNNING envelope without output is read
 * from its task's members. Contradicting or missing signals give `unknown`, never an error.
 */
export function detectJobKind(envelope: unknown): JobKind {
  if (!isPlainObject(envelope)) return 'unknown';
  const input = envelope.input;
  const task = isPlainObject(input) && isPlainObject(input.task) ? input.task : undefined;
  const output = isPlainObject(envelope.output) ? envelope.output : undefined;
  const fromOutput = output === undefined ? undefined : kindOfOutput(output);
  const fromTask = task === undefined ? undefined : kindOfTask(task);
  if (fromOutput === MIXED || fromTask === MIXED) return 'unknown';
  if (fromOutput !== undefined && fromTask !== undefined && fromOutput !== fromTask) return 'unknown';
  return fromOutput ?? fromTask ?? 'unknown';
}

/** input.task.job_id when it is a string (claimed, not verified), else undefined. */
export function claimedJobId(envelope: unknown): string | undefined {
  if (!isPlainObject(envelope) || !isPlainObject(envelope.input) || !isPlainObject(envelope.input.task)) {
    return undefined;
  }
  const jobId = envelope.input.task.job_id;
  return typeof jobId === 'string' ? jobId : undefined;
}
