/**
 * HubSpot's side of the record mapping: which columns of the hubspot-companies and hubspot-contacts
 * templates carry the keys, the job change status and the company, and what a moved or left contact gets.
 */
import {
  type CrmKeys,
  type EventRows,
  type MappedBatch,
  mapRecords as mapCrmRecords,
  type RecordShape,
} from '../crm/map-records.js';

/** The job change properties whose value `moved` makes current again (they overwrite unless configured). */
export const MOVED_FIELDS = ['jobtitle', 'company'] as const;
/** What a `left` contact gets: its status only. */
export const LEFT_FIELDS = ['hooksync_job_change_status'] as const;

/** The hubspot-* templates' columns the core reads. */
export const HUBSPOT_SHAPE: RecordShape = {
  domain: 'domain',
  companyName: 'name',
  email: 'email',
  linkedinUrl: 'hs_linkedin_url',
  firstName: 'firstname',
  lastName: 'lastname',
  jobChangeStatus: 'hooksync_job_change_status',
  contactCompany: 'company',
  movedFields: MOVED_FIELDS,
  leftFields: LEFT_FIELDS,
  recordId: 'Record ID',
};

/** Maps a batch's rows to HubSpot records (see `crm/map-records.ts`). */
export function mapRecords(batch: readonly EventRows[], keys: CrmKeys): MappedBatch {
  return mapCrmRecords(batch, keys, HUBSPOT_SHAPE);
}
