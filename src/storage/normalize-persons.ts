/**
 * Persons out of an envelope: every entry of a Search Contact page's output.persons (position = index),
 * and the person of a Job Change result when it is not the empty object.
 */
import type { PersonsTable } from './job-store/job-store-tables.js';
import {
  asRecord,
  type JsonRecord,
  jsonArrayAt,
  jsonObjectAt,
  member,
  recordAt,
  textAt,
} from './normalize-values.js';

/** One row of the persons table. */
export type PersonRow = PersonsTable;

function personRow(
  jobId: string,
  position: number,
  sourceKind: PersonRow['source_kind'],
  person: JsonRecord,
  customFields: string,
  receivedAt: string,
): PersonRow {
  return {
    job_id: jobId,
    position,
    source_kind: sourceKind,
    person_id: textAt(person, 'id'),
    first_name: textAt(person, 'first_name'),
    last_name: textAt(person, 'last_name'),
    linkedin_id: textAt(person, 'linkedin_id'),
    linkedin_url: textAt(person, 'linkedin_url'),
    location: textAt(person, 'location'),
    country: textAt(person, 'country'),
    company_id: textAt(person, 'company_id'),
    company_linkedin_id: textAt(person, 'company_linkedin_id'),
    company_name: textAt(person, 'company_name'),
    company_domain: textAt(person, 'company_domain'),
    title: textAt(person, 'title'),
    seniority: textAt(person, 'seniority'),
    department: textAt(person, 'department'),
    custom_fields: customFields,
    received_at: receivedAt,
  };
}

/** The job's input.task.custom_fields as JSON text ('{}' when absent): every row of the job carries it. */
function taskCustomFields(envelope: unknown): string {
  return jsonObjectAt(recordAt(recordAt(asRecord(envelope), 'input'), 'task'), 'custom_fields');
}

/**
 * person.experiences (JSON text) of the person at `position` in a stored envelope: output.persons[position]
 * of a Search Contact page, output.person of a Job Change; null when there is no such person. Not a
 * column: exports read it from the envelope when a template asks for it.
 */
export function experiencesAt(envelope: unknown, position: number): string | null {
  const output = recordAt(asRecord(envelope), 'output');
  const persons = member(output, 'persons');
  const person = Array.isArray(persons) ? asRecord(persons[position]) : recordAt(output, 'person');
  if (person === undefined || Object.keys(person).length === 0) return null;
  return jsonArrayAt(person, 'experiences');
}

/** person.about of each person `rows` were made from, by position (null where none): for person_texts. */
export function aboutsOf(envelope: unknown, rows: readonly PersonRow[]): (string | null)[] {
  const output = recordAt(asRecord(envelope), 'output');
  const persons = member(output, 'persons');
  const abouts: (string | null)[] = [];
  for (const row of rows) {
    const person = Array.isArray(persons) ? asRecord(persons[row.position]) : recordAt(output, 'person');
    abouts[row.position] = textAt(person, 'about');
  }
  return Array.from(abouts, (about) => about ?? null);
}

/** Rows for output.persons of a Search Contact envelope; entries that are not objects are skipped. */
export function normalizeSearchContactPersons(
  envelope: unknown,
  jobId: string,
  receivedAt: string,
): PersonRow[] {
  const persons = member(recordAt(asRecord(envelope), 'output'), 'persons');
  if (!Array.isArray(persons)) return [];
  const rows: PersonRow[] = [];
  const customFields = taskCustomFields(envelope);
  persons.forEach((entry: unknown, index) => {
    const person = asRecord(entry);
    if (person !== undefined)
      rows.push(personRow(jobId, index, 'search_contact', person, customFields, receivedAt));
  });
  return rows;
}

/** The row for output.person of a Job Change envelope (none when it is `{}`, as for no_change/unknown). */
export function normalizeJobChangePerson(envelope: unknown, jobId: string, receivedAt: string): PersonRow[] {
  const person = recordAt(recordAt(asRecord(envelope), 'output'), 'person');
  if (person === undefined || Object.keys(person).length === 0) return [];
  return [personRow(jobId, 0, 'job_change', person, taskCustomFields(envelope), receivedAt)];
}
