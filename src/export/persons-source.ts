/**
 * The persons source: every person the service returned (Search Contact output.persons, Job Change
 * output.person), joined to its job change; plus job changes without a person (no_change / unknown), which
 * only a widened job_change_status filter lets out.
 */
import { experiencesAt } from '../storage/normalize-persons.js';
import { defineFields } from './define-fields.js';
import type { ExportSource } from './export-sources.js';

/** Persons, with their job change when they come from one. */
export const PERSONS_SOURCE: ExportSource = {
  name: 'persons',
  description: 'persons from Search Contact and Job Change results (with the job change, if any)',
  kinds: ['search_contact', 'job_change'],
  branches: [
    {
      from: 'persons {p} LEFT JOIN job_changes {jc} ON {jc}.job_id = {p}.job_id',
      where: undefined,
      kinds: ['search_contact', 'job_change'],
      kind: '{p}.source_kind',
      receivedAt: '{p}.received_at',
      jobId: '{p}.job_id',
      position: '{p}.position',
      jobChangeStatus: '{jc}.job_change_status',
      isJobChange: "{p}.source_kind = 'job_change'",
      // persons.person_id and persons.linkedin_url are indexed: one probe per row, no sort, flat memory.
      identities: ['{p}.person_id', '{p}.linkedin_url'],
    },
    {
      // A check that found no person: its own row, never merged with another.
      from: 'job_changes {jc}',
      where: 'NOT EXISTS (SELECT 1 FROM persons q WHERE q.job_id = {jc}.job_id)',
      kinds: ['job_change'],
      kind: "'job_change'",
      receivedAt: '{jc}.received_at',
      jobId: '{jc}.job_id',
      position: '0',
      jobChangeStatus: '{jc}.job_change_status',
      isJobChange: '1 = 1',
    },
  ],
  fromEnvelope: (envelope, position) => ({ experiences: experiencesAt(envelope, position) }),
  fields: defineFields([
    ['job_id', 'text', 'the job_id of the job the person came in', '{p}.job_id', '{jc}.job_id'],
    ['kind', 'text', 'search_contact or job_change: the kind of that job', '{p}.source_kind', "'job_change'"],
    ['position', 'integer', 'index in output.persons (0 for a Job Change person)', '{p}.position', '0'],
    [
      'received_at',
      'timestamp',
      'when hooksync stored the job (ISO 8601, UTC)',
      '{p}.received_at',
      '{jc}.received_at',
    ],
    ['id', 'text', 'person.id', '{p}.person_id', '{jc}.person_id'],
    ['first_name', 'text', 'person.first_name', '{p}.first_name', '{jc}.first_name'],
    ['last_name', 'text', 'person.last_name', '{p}.last_name', '{jc}.last_name'],
    ['linkedin_id', 'text', 'person.linkedin_id', '{p}.linkedin_id', 'NULL'],
    ['linkedin_url', 'text', 'person.linkedin_url', '{p}.linkedin_url', '{jc}.linkedin_url'],
    ['about', 'text', 'person.about (kept once per job, compressed)', 'texts:about'],
    ['location', 'text', 'person.location (free text, e.g. "City, Region, Country")', '{p}.location', 'NULL'],
    ['country', 'text', 'person.country', '{p}.country', 'NULL'],
    ['company_id', 'text', 'person.company_id (Search Contact)', '{p}.company_id', 'NULL'],
    [
      'company_linkedin_id',
      'text',
      'person.company_linkedin_id',
      '{p}.company_linkedin_id',
      '{jc}.new_company_linkedin_id',
    ],
    [
      'company_name',
      'text',
      'person.company_name (current employer)',
      '{p}.company_name',
      '{jc}.new_company_name',
    ],
    [
      'company_domain',
      'text',
      'person.company_domain (current employer)',
      '{p}.company_domain',
      '{jc}.new_company_domain',
    ],
    ['title', 'text', 'person.title (current role)', '{p}.title', '{jc}.new_title'],
    ['seniority', 'text', 'person.seniority', '{p}.seniority', 'NULL'],
    ['department', 'text', 'person.department', '{p}.department', 'NULL'],
    [
      'experiences',
      'json',
      'person.experiences (JSON array; read from the stored envelope)',
      'envelope:experiences',
    ],
    [
      'job_change_status',
      'text',
      'output.job_change_status (Job Change only)',
      '{jc}.job_change_status',
      '{jc}.job_change_status',
    ],
    [
      'previous_title',
      'text',
      'title of the most recent past role (Job Change only)',
      '{jc}.previous_title',
      '{jc}.previous_title',
    ],
    [
      'previous_company_name',
      'text',
      'company of the most recent past role (Job Change only)',
      '{jc}.previous_company_name',
      '{jc}.previous_company_name',
    ],
    [
      'previous_company_domain',
      'text',
      'domain of that company (Job Change only)',
      '{jc}.previous_company_domain',
      '{jc}.previous_company_domain',
    ],
    [
      'task.contact_linkedin',
      'text',
      'input.task.contact_linkedin (Job Change only)',
      '{jc}.contact_linkedin',
      '{jc}.contact_linkedin',
    ],
    [
      'task.contact_full_name',
      'text',
      'input.task.contact_full_name (Job Change only)',
      '{jc}.contact_full_name',
      '{jc}.contact_full_name',
    ],
    [
      'task.company_domain',
      'text',
      'input.task.company_domain (Job Change only)',
      '{jc}.company_domain',
      '{jc}.company_domain',
    ],
    [
      'task.company_linkedin',
      'text',
      'input.task.company_linkedin (Job Change only)',
      '{jc}.company_linkedin',
      '{jc}.company_linkedin',
    ],
    [
      'task.professional_email',
      'text',
      'input.task.professional_email: the e-mail you gave (Job Change only)',
      '{jc}.professional_email',
      '{jc}.professional_email',
    ],
    [
      'task.personal_email',
      'text',
      'input.task.personal_email: the e-mail you gave (Job Change only)',
      '{jc}.personal_email',
      '{jc}.personal_email',
    ],
    [
      'task.custom_fields',
      'json',
      'input.task.custom_fields of the Search Contact or Job Change job (JSON object)',
      'COALESCE({p}.custom_fields, {jc}.custom_fields)',
      '{jc}.custom_fields',
    ],
  ]),
};
