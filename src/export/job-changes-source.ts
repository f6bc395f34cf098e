/**
 * The job changes source: every Job Change result of every status, the contact as given in input.task
 * beside what the service found.
 */
import { experiencesAt } from '../storage/normalize-persons.js';
import { defineFields } from './define-fields.js';
import type { ExportSource } from './export-sources.js';

/** Job Change results. */
export const JOB_CHANGES_SOURCE: ExportSource = {
  name: 'job_changes',
  description: 'Job Change results: the contact you gave beside what the service found',
  kinds: ['job_change'],
  branches: [
    {
      from: "job_changes {jc} LEFT JOIN persons {p} ON {p}.job_id = {jc}.job_id AND {p}.position = 0 AND {p}.source_kind = 'job_change'",
      where: undefined,
      kinds: ['job_change'],
      kind: "'job_change'",
      receivedAt: '{jc}.received_at',
      jobId: '{jc}.job_id',
      position: '0',
      jobChangeStatus: '{jc}.job_change_status',
      isJobChange: '1 = 1',
      windowKey:
        "COALESCE({jc}.person_id, {jc}.linkedin_url, {jc}.contact_linkedin, {jc}.professional_email, 'row:' || {jc}.job_id)",
    },
  ],
  fromEnvelope: (envelope) => ({ experiences: experiencesAt(envelope, 0) }),
  fields: defineFields([
    ['job_id', 'text', 'the job_id of the Job Change job', '{jc}.job_id'],
    ['received_at', 'timestamp', 'when hooksync stored the job (ISO 8601, UTC)', '{jc}.received_at'],
    [
      'job_change_status',
      'text',
      'output.job_change_status (moved, left, no_change, unknown)',
      '{jc}.job_change_status',
    ],
    ['task.contact_linkedin', 'text', 'input.task.contact_linkedin', '{jc}.contact_linkedin'],
    ['task.contact_full_name', 'text', 'input.task.contact_full_name', '{jc}.contact_full_name'],
    ['task.company_domain', 'text', 'input.task.company_domain', '{jc}.company_domain'],
    ['task.company_linkedin', 'text', 'input.task.company_linkedin', '{jc}.company_linkedin'],
    [
      'task.professional_email',
      'text',
      'input.task.professional_email: the e-mail you gave',
      '{jc}.professional_email',
    ],
    ['task.personal_email', 'text', 'input.task.personal_email: the e-mail you gave', '{jc}.personal_email'],
    ['task.custom_fields', 'json', 'input.task.custom_fields (JSON object)', '{jc}.custom_fields'],
    ['person.id', 'text', 'output.person.id', '{jc}.person_id'],
    ['person.first_name', 'text', 'output.person.first_name', '{jc}.first_name'],
    ['person.last_name', 'text', 'output.person.last_name', '{jc}.last_name'],
    ['person.linkedin_id', 'text', 'output.person.linkedin_id', '{p}.linkedin_id'],
    ['person.linkedin_url', 'text', 'output.person.linkedin_url', '{jc}.linkedin_url'],
    ['person.about', 'text', 'output.person.about (kept once per job, compressed)', 'texts:about'],
    ['person.location', 'text', 'output.person.location', '{p}.location'],
    ['person.country', 'text', 'output.person.country', '{p}.country'],
    ['person.title', 'text', 'output.person.title (the new role)', '{jc}.new_title'],
    ['person.company_name', 'text', 'output.person.company_name (the new employer)', '{jc}.new_company_name'],
    ['person.company_domain', 'text', 'output.person.company_domain', '{jc}.new_company_domain'],
    [
      'person.company_linkedin_id',
      'text',
      'output.person.company_linkedin_id',
      '{jc}.new_company_linkedin_id',
    ],
    ['person.seniority', 'text', 'output.person.seniority', '{p}.seniority'],
    ['person.department', 'text', 'output.person.department', '{p}.department'],
    [
      'person.experiences',
      'json',
      'output.person.experiences (JSON array; read from the stored envelope)',
      'envelope:experiences',
    ],
    [
      'previous_title',
      'text',
      'title of the most recent past role in person.experiences',
      '{jc}.previous_title',
    ],
    ['previous_company_name', 'text', 'company of that role', '{jc}.previous_company_name'],
    ['previous_company_domain', 'text', 'domain of that company', '{jc}.previous_company_domain'],
  ]),
};
