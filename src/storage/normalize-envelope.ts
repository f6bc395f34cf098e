/**
 * Envelope → normalized rows, by kind. Pure, and total: a malformed envelope gives null fields or no
 * rows, never an exception, because the job itself is stored whatever its shape.
 */
import type { JobKind } from './database.js';
import { type CompanyRow, normalizeCompanyReveal } from './normalize-company.js';
import { type JobChangeRow, normalizeJobChange } from './normalize-job-change.js';
import {
  normalizeJobChangePerson,
  normalizeSearchContactPersons,
  type PersonRow,
} from './normalize-persons.js';

/** The rows derived from one stored envelope. */
export interface NormalizedRows {
  readonly persons: readonly PersonRow[];
  readonly companies: readonly CompanyRow[];
  readonly jobChanges: readonly JobChangeRow[];
}

const NO_ROWS: NormalizedRows = Object.freeze({ persons: [], companies: [], jobChanges: [] });

/** The normalized rows of `envelope` (already parsed with parseJsonText, so int64s are bigints). */
export function normalizeEnvelope(
  envelope: unknown,
  kind: JobKind,
  jobId: string,
  receivedAt: string,
): NormalizedRows {
  switch (kind) {
    case 'search_contact':
      return {
        persons: normalizeSearchContactPersons(envelope, jobId, receivedAt),
        companies: [],
        jobChanges: [],
      };
    case 'company_reveal':
      return { persons: [], companies: normalizeCompanyReveal(envelope, jobId, receivedAt), jobChanges: [] };
    case 'job_change':
      return {
        persons: normalizeJobChangePerson(envelope, jobId, receivedAt),
        companies: [],
        jobChanges: normalizeJobChange(envelope, jobId, receivedAt),
      };
    default:
      return NO_ROWS;
  }
}
