/**
 * Pipedrive's side of the record mapping: which columns of the pipedrive-organizations and
 * pipedrive-persons templates (Pipedrive's field names) carry the keys, the job change status and the
 * organization; a moved person's organization (its `org_id` link) and job title overwrite unless
 * configured, a person who `left` gets its status only; `Pipedrive ID` is the `pd_id` a job carried.
 */
import type { RecordShape } from '../crm/map-records.js';

/** The pipedrive-* templates' columns the core reads. */
export const PIPEDRIVE_SHAPE: RecordShape = {
  domain: 'Domain',
  companyName: 'Name',
  email: 'Email',
  linkedinUrl: 'LinkedIn URL',
  firstName: 'First name',
  lastName: 'Last name',
  jobChangeStatus: 'Job change status',
  contactCompany: 'Organization',
  movedFields: ['Organization', 'Job title'],
  leftFields: ['Job change status'],
  recordId: 'Pipedrive ID',
};
