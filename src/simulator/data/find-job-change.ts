/**
 * Job Change over a synthetic world: the answer depends only on who the request identifies, so the same
 * contact always gets the same status and profile.
 *
 * Identity: contact_linkedin, else professional_email, else personal_email, else contact_full_name with the
 * company (company_domain, company_linkedin or the email's domain). No identity → unknown.
 * Proportions over identities: moved 35 %, left 15 %, no_change 35 %, unknown 15 %.
 * - moved: a new current role at another world company, started in the last 12 months; the previous role
 *   ends the month the new one starts, or up to two months earlier.
 * - left: no current role: company fields, title, seniority and department are null and every experience
 *   has its end; the last role ended in the last 12 months.
 * - no_change / unknown: person {} (interface, Job Change output).
 * The person answered is the one asked about: contact_full_name and contact_linkedin, when given, are
 * the answer's name and LinkedIn URL.
 */
import type { JobChangeStatus } from '../../contract/enums.js';
import type { JobChangeRequest } from '../../contract/requests.js';
import type { EmptyObject, JobChangePerson } from '../../contract/resources.js';
import { composeJobTitle } from './job-titles.js';
import { parseLinkedinHandle } from './linkedin-handle.js';
import { toJobChangePerson } from './person-views.js';
import { createSeededRandom, hashToUnit, pickWeighted, type Weighted } from './seeded-random.js';
import type { SyntheticCompany } from './synthesize-company.js';
import type { SyntheticPerson, SyntheticRole } from './synthesize-person.js';
import type { WorldCatalog } from './world-catalog.js';
import { normalizeName } from './world-catalog.js';

/** A Job Change output without its usage: a person for moved and left, `{}` otherwise. */
export type SyntheticJobChange =
  | { job_change_status: Extract<JobChangeStatus, 'moved' | 'left'>; person: JobChangePerson }
  | { job_change_status: Extract<JobChangeStatus, 'no_change' | 'unknown'>; person: EmptyObject };

/** Share of identities per status (see the module comment). */
export const JOB_CHANGE_STATUS_WEIGHTS: readonly Weighted<JobChangeStatus>[] = [
  ['moved', 35],
  ['left', 15],
  ['no_change', 35],
  ['unknown', 15],
];

/** The fields of a Job Change request this module reads; a validated JobChangeRequest has them all. */
export type JobChangeQuery = Pick<
  Partial<JobChangeRequest>,
  | 'company_domain'
  | 'company_linkedin'
  | 'professional_email'
  | 'personal_email'
  | 'contact_linkedin'
  | 'contact_full_name'
>;

/** Answers a Job Change request against `catalog`. */
export function findJobChange(catalog: WorldCatalog, request: JobChangeQuery): SyntheticJobChange {
  const identity = identify(request);
  if (identity === undefined) return { job_change_status: 'unknown', person: {} };
  const { seed } = catalog.config;
  const status = pickWeighted(JOB_CHANGE_STATUS_WEIGHTS, hashToUnit(seed, 'job-change', ...identity));
  if (status === 'no_change' || status === 'unknown') return { job_change_status: status, person: {} };
  const before = asAsked(personOf(catalog, request, identity), request);
  const random = createSeededRandom(seed, 'job-change-move', ...identity);
  const reference = catalog.config.referenceMonth;
  const previous = before.current;
  if (previous === null) return { job_change_status: status, person: toJobChangePerson(before) };
  const past = before.roles.filter((role) => role.endMonth !== null);
  // The change happened in the last year, and never before the role it ends began.
  const changeMonth = Math.min(reference, Math.max(previous.startMonth + 1, reference - random.int(0, 11)));
  const ended: SyntheticRole = {
    ...previous,
    endMonth: Math.max(previous.startMonth, changeMonth - random.int(0, 2)),
  };
  if (status === 'left') {
    const person: SyntheticPerson = { ...before, current: null, roles: [ended, ...past] };
    return { job_change_status: 'left', person: toJobChangePerson(person) };
  }
  const employer = catalog.pickOtherCompany(random, previous.employer);
  const title = composeJobTitle(random, before.department, before.seniority);
  const role: SyntheticRole = {
    title,
    employer,
    location: before.location,
    description: null,
    startMonth: changeMonth,
    endMonth: null,
  };
  const person: SyntheticPerson = { ...before, current: role, roles: [role, ended, ...past] };
  return { job_change_status: 'moved', person: toJobChangePerson(person) };
}

/** The seed parts that name the person a request is about, or undefined when it names nobody. */
export function identify(request: JobChangeQuery): string[] | undefined {
  const handle = given(request.contact_linkedin) ? parseLinkedinHandle(request.contact_linkedin) : '';
  if (handle.length > 0) return ['linkedin', handle];
  if (given(request.professional_email)) return ['email', request.professional_email.trim().toLowerCase()];
  if (given(request.personal_email)) return ['email', request.personal_email.trim().toLowerCase()];
  if (given(request.contact_full_name)) {
    return ['name', normalizeName(request.contact_full_name), companyHint(request) ?? ''];
  }
  return undefined;
}

/**
 * The profile under the name the request gives: a LinkedIn profile found in the world keeps its URL but
 * answers as the contact asked about, so that a trial's exports map onto the rows that went in.
 */
function asAsked(person: SyntheticPerson, request: JobChangeQuery): SyntheticPerson {
  if (!given(request.contact_full_name)) return person;
  const { firstName, lastName } = namesOf(request);
  if (firstName === undefined) return person;
  const last = lastName ?? person.lastName;
  return { ...person, firstName, lastName: last, fullName: `${firstName} ${last}`.trim() };
}

function given(value: string | null | undefined): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/** The company a request names, as a lookup key: domain, LinkedIn page or the professional email's domain. */
function companyHint(request: JobChangeQuery): string | undefined {
  if (given(request.company_domain)) return `domain:${request.company_domain.trim().toLowerCase()}`;
  if (given(request.company_linkedin)) return `linkedin:${parseLinkedinHandle(request.company_linkedin)}`;
  const emailDomain = request.professional_email?.split('@')[1];
  return emailDomain === undefined ? undefined : `domain:${emailDomain.trim().toLowerCase()}`;
}

/** The profile before the change: a LinkedIn profile's person, or one made for the email or name given. */
function personOf(catalog: WorldCatalog, request: JobChangeQuery, identity: string[]): SyntheticPerson {
  if (identity[0] === 'linkedin') return catalog.personByLinkedin(identity[1]!)!;
  const employer = employerOf(catalog, request, identity);
  return catalog.synthesizeContact(['job-change', ...identity], employer, namesOf(request));
}

function employerOf(catalog: WorldCatalog, request: JobChangeQuery, identity: string[]): SyntheticCompany {
  const emailDomain = request.professional_email?.split('@')[1];
  const named =
    (given(request.company_domain) ? catalog.companyByDomain(request.company_domain) : undefined) ??
    (given(request.company_linkedin) ? catalog.companyByLinkedin(request.company_linkedin) : undefined) ??
    (given(emailDomain) ? catalog.companyByDomain(emailDomain) : undefined);
  return named ?? catalog.pickCompany(hashToUnit(catalog.config.seed, 'job-change-employer', ...identity));
}

/** First and last name from contact_full_name, else from an email's local part ("jane.doe" → Jane Doe). */
function namesOf(request: JobChangeQuery): { firstName?: string; lastName?: string } {
  if (given(request.contact_full_name)) {
    const [first = '', ...rest] = request.contact_full_name.trim().split(/\s+/);
    return rest.length === 0 ? { firstName: first } : { firstName: first, lastName: rest.join(' ') };
  }
  const local = (request.professional_email ?? request.personal_email ?? '').split('@')[0] ?? '';
  const parts = local.split(/[._-]+/).filter((part) => /^[a-z]{2,}$/i.test(part));
  if (parts.length < 2) return {};
  const capital = (part: string) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase();
  return { firstName: capital(parts[0]!), lastName: parts.slice(1).map(capital).join(' ') };
}
