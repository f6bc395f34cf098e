/**
 * The job_changes row of a Job Change envelope: the contact as given in input.task beside what the
 * service found (job_change_status, the current role from output.person, and the previous role).
 */
import type { JobChangesTable } from './job-store/job-store-tables.js';
import { asRecord, type JsonRecord, jsonObjectAt, member, recordAt, textAt } from './normalize-values.js';

/** One row of the job_changes table. */
export type JobChangeRow = JobChangesTable;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

function pad(value: unknown, width: number): string | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
    ? String(value).padStart(width, '0')
    : undefined;
}

/** A sortable YYYY-MM(-DD) key for when a past role ended (or, lacking that, started). */
function recencyKey(experience: JsonRecord): string {
  for (const [date, year, month] of [
    ['end_date', 'end_year', 'end_month'],
    ['start_date', 'start_year', 'start_month'],
  ] as const) {
    const text = member(experience, date);
    if (typeof text === 'string' && ISO_DATE.test(text)) return text.slice(0, 10);
    const y = pad(member(experience, year), 4);
    if (y !== undefined) return `${y}-${pad(member(experience, month), 2) ?? '00'}-00`;
  }
  return '';
}

/** The most recent experience with is_current false (the earliest listed wins a tie), if any. */
export function findPreviousRole(experiences: unknown): JsonRecord | undefined {
  if (!Array.isArray(experiences)) return undefined;
  let best: JsonRecord | undefined;
  let bestKey = '';
  for (const entry of experiences) {
    const experience = asRecord(entry);
    if (experience === undefined || member(experience, 'is_current') !== false) continue;
    const key = recencyKey(experience);
    if (best === undefined || key > bestKey) {
      best = experience;
      bestKey = key;
    }
  }
  return best;
}

/** The row for a Job Change envelope; none when its output is missing or not an object (e.g. RUNNING). */
export function normalizeJobChange(envelope: unknown, jobId: string, receivedAt: string): JobChangeRow[] {
  const root = asRecord(envelope);
  const output = recordAt(root, 'output');
  if (output === undefined) return [];
  const task = recordAt(recordAt(root, 'input'), 'task');
  const person = recordAt(output, 'person');
  const previous = findPreviousRole(member(person, 'experiences'));
  return [
    {
      job_id: jobId,
      job_change_status: textAt(output, 'job_change_status'),
      contact_linkedin: textAt(task, 'contact_linkedin'),
      contact_full_name: textAt(task, 'contact_full_name'),
      company_domain: textAt(task, 'company_domain'),
      company_linkedin: textAt(task, 'company_linkedin'),
      professional_email: textAt(task, 'professional_email'),
      personal_email: textAt(task, 'personal_email'),
      person_id: textAt(person, 'id'),
      first_name: textAt(person, 'first_name'),
      last_name: textAt(person, 'last_name'),
      linkedin_url: textAt(person, 'linkedin_url'),
      new_title: textAt(person, 'title'),
      new_company_name: textAt(person, 'company_name'),
      new_company_domain: textAt(person, 'company_domain'),
      new_company_linkedin_id: textAt(person, 'company_linkedin_id'),
      previous_title: textAt(previous, 'title'),
      previous_company_name: textAt(previous, 'company_name'),
      previous_company_domain: textAt(previous, 'company_domain'),
      custom_fields: jsonObjectAt(task, 'custom_fields'),
      received_at: receivedAt,
    },
  ];
}
