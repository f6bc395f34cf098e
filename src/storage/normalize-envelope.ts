/**
 * Envelope → normalized rows, by kind. Pure, and total: a malformed envelope gives null fields or no
 * rows, never an exception, because the job itself is stored whatever its shape.
 */
import type { JobKind } from '../contract/enums.js';
import { type CompanyRow, normalizeCompanyReveal } from './normalize-company.js';
import { type JobChangeRow, normalizeJobChange } from './normalize-job-change.js';
import {
  aboutsOf,
  normalizeJobChangePerson,
  normalizeSearchContactPersons,
  type PersonRow,
} from './normalize-persons.js';
import { type PersonTextsRow, personTextsRow } from './person-texts.js';

/** The rows derived from one stored envelope. */
export interface NormalizedRows {
  readonly persons: readonly PersonRow[];
  readonly companies: readonly CompanyRow[];
  readonly jobChanges: readonly JobChangeRow[];
  /** The persons' `about` texts, one compressed row per job (none when no person has one). */
  readonly personTexts: readonly PersonTextsRow[];
}

const NO_ROWS: NormalizedRows = Object.freeze({
  persons: [],
  companies: [],
  jobChanges: [],
  personTexts: [],
});

/** The normalized rows of `envelope` (already parsed with parseJsonText, so int64s are bigints). */
export function normalizeEnvelope(
  envelope: unknown,
  kind: JobKind,
  jobId: string,
  receivedAt: string,
): NormalizedRows {
  switch (kind) {
    case 'search_contact': {
      const persons = normalizeSearchContactPersons(envelope, jobId, receivedAt);
      const personTexts = personTextsRow(jobId, aboutsOf(envelope, persons));
      return { persons, companies: [], jobChanges: [], personTexts };
    }
    case 'company_reveal':
      return {
        persons: [],
        companies: normalizeCompanyReveal(envelope, jobId, receivedAt),
        jobChanges: [],
        personTexts: [],
      };
    case 'job_change': {
      const persons = normalizeJobChangePerson(envelope, jobId, receivedAt);
      return {
        persons,
        companies: [],
        jobChanges: normalizeJobChange(envelope, jobId, receivedAt),
        personTexts: personTextsRow(jobId, aboutsOf(envelope, persons)),
      };
    }
    default:
      return NO_ROWS;
  }
}
