/**
 * Pipedrive's side of the record mapping: which columns of the pipedrive-organizations and
 * pipedrive-persons templates (Pipedrive's field names) carry the keys, the job change status and the
 * organization, and what a moved or left person gets.
 */
import type { RecordShape } from '../crm/map-records.js';

/** The fields a moved person's new job makes current (they overwrite unless configured). */
export const MOVED_FIELDS = ['Organization', 'Job title'] as const;
/** What a person who `left` gets: its status only. */
export const LEFT_FIELDS = ['Job change status'] as const;

/** The pipedrive-* templates' columns the core reads; `Pipedrive ID` is the `pd_id` a job carried. */
export const PIPEDRIVE_SHAPE: RecordShape = {
  domain: 'Domain',
  companyName: 'Name',
  email: 'Email',
  linkedinUrl: 'LinkedIn URL',
  jobChangeStatus: 'Job change status',
  contactCompany: 'Organization',
  movedFields: MOVED_FIELDS,
  leftFields: LEFT_FIELDS,
  recordId: 'Pipedrive ID',
};
