/**
 * A test's hand on the synthetic world: the Job Change answer for one contact, set between two checks (a
 * contact who moves, leaves or comes back), through `Simulator.setJobChange` or POST /_sim/job-changes. The
 * contact is named as a Job Change request names it (contact_linkedin, professional_email, ...), and
 * identified exactly as the world identifies it (data/find-job-change.ts), so that the override answers
 * every request about that person.
 */
import { createHash } from 'node:crypto';
import type { JobChangeQuery, SyntheticJobChange } from './data/find-job-change.js';
import { identify } from './data/find-job-change.js';

/** The answer to give: a status, and for `moved` the new company and title. */
export interface EmploymentAnswer {
  readonly job_change_status: 'moved' | 'left' | 'no_change' | 'unknown';
  readonly company_domain?: string | null | undefined;
  readonly company_name?: string | null | undefined;
  readonly title?: string | null | undefined;
}

const STATUSES = new Set(['moved', 'left', 'no_change', 'unknown']);

function uuidOf(parts: readonly string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Answers set by hand, by identity. */
export class EmploymentOverrides {
  readonly #answers = new Map<string, EmploymentAnswer>();

  /**
   * Sets (or with `undefined` clears) the answer for the contact `contact` names. Throws TypeError when
   * the contact names nobody or the answer's status is not a Job Change status.
   */
  set(contact: JobChangeQuery, answer: EmploymentAnswer | undefined): void {
    const identity = identify(contact);
    if (identity === undefined) {
      throw new TypeError(
        'contact must name someone: contact_linkedin, professional_email, personal_email or contact_full_name',
      );
    }
    const key = identity.join('\u0000');
    if (answer === undefined) {
      this.#answers.delete(key);
      return;
    }
    if (!STATUSES.has(answer.job_change_status)) {
      throw new TypeError('job_change_status must be one of moved, left, no_change, unknown');
    }
    this.#answers.set(key, answer);
  }

  /** Forgets every answer set. */
  clear(): void {
    this.#answers.clear();
  }

  /** The world's answer to `request`, or the one set by hand for its contact. */
  apply(request: JobChangeQuery, world: SyntheticJobChange): SyntheticJobChange {
    const identity = identify(request);
    const answer = identity === undefined ? undefined : this.#answers.get(identity.join('\u0000'));
    if (answer === undefined || identity === undefined) return world;
    const status = answer.job_change_status;
    if (status === 'no_change' || status === 'unknown') return { job_change_status: status, person: {} };
    const base: Record<string, unknown> =
      Object.keys(world.person).length > 0
        ? { ...world.person }
        : {
            id: uuidOf(identity),
            first_name: null,
            last_name: null,
            linkedin_id: null,
            linkedin_url: null,
            about: null,
            location: null,
            country: null,
            company_linkedin_id: null,
            seniority: null,
            department: null,
            experiences: [],
          };
    const person = {
      ...base,
      company_domain: status === 'left' ? null : (answer.company_domain ?? null),
      company_name: status === 'left' ? null : (answer.company_name ?? null),
      company_linkedin_id: status === 'left' ? null : (base.company_linkedin_id ?? null),
      title: status === 'left' ? null : (answer.title ?? null),
    };
    return { job_change_status: status, person: person as never };
  }
}
