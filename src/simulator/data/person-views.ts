/**
 * A synthetic person as the interface shows it: the Search Contact person (profile only, channels null)
 * and the Job Change person (current profile and career). Fresh objects on every call.
 */
import type {
  JobChangeExperience,
  JobChangePerson,
  SearchContactExperience,
  SearchContactPerson,
} from '../../contract/resources.js';
import { formatMonthStart, monthOf, yearOf } from './calendar-month.js';
import type { SyntheticPerson, SyntheticRole } from './synthesize-person.js';

/** The profile fields both outputs share. Without a current role, employer, title, seniority and department are null. */
function profileOf(person: SyntheticPerson) {
  const current = person.current;
  const employer = current?.employer.company ?? null;
  return {
    id: person.id,
    first_name: person.firstName,
    last_name: person.lastName,
    linkedin_id: person.linkedinHandle,
    linkedin_url: person.linkedinUrl,
    about: person.about,
    location: person.location,
    country: person.country,
    company_linkedin_id: employer?.linkedin_id ?? null,
    company_name: employer?.name ?? null,
    company_domain: employer?.domain ?? null,
    title: current?.title ?? null,
    seniority: current === null ? null : person.seniority,
    department: current === null ? null : person.department,
  };
}

/** The Search Contact person: channel and verification fields null, phone_numbers empty (Search Contact output). */
export function toSearchContactPerson(person: SyntheticPerson): SearchContactPerson {
  return {
    ...profileOf(person),
    company_id: person.current?.employer.company.id ?? null,
    personal_email: null,
    professional_email: null,
    mobile_phone: null,
    phone_numbers: [],
    experiences: person.roles.map(toSearchContactExperience),
    email_verified: null,
    email_confidence: null,
    email_verified_status: null,
    domain_age_days: null,
    smtp_provider: null,
    mx_record: null,
  };
}

/**
 * The Job Change person. Without a current role (status left), the employer fields, title, seniority and
 * department are null and every experience is ended.
 */
export function toJobChangePerson(person: SyntheticPerson): JobChangePerson {
  return { ...profileOf(person), experiences: person.roles.map(toJobChangeExperience) };
}

/**
 * Experience fields both outputs share; end_* only for past roles (interface: "present for past roles").
 * Every field the interface lists, none null (it allows null optional values in Search Contact experiences
 * only): every synthetic company has a LinkedIn page.
 */
function toJobChangeExperience(role: SyntheticRole): JobChangeExperience {
  const company = role.employer.company;
  if (company.linkedin_id === null || company.linkedin_url === null) {
    throw new TypeError(`synthetic company ${company.domain} has no LinkedIn page`);
  }
  const started = {
    title: role.title,
    location: role.location,
    company_name: company.name,
    company_linkedin_id: company.linkedin_id,
    company_linkedin_url: company.linkedin_url,
    company_domain: company.domain,
    start_year: yearOf(role.startMonth),
    start_month: monthOf(role.startMonth),
    start_date: formatMonthStart(role.startMonth),
  };
  if (role.endMonth === null) return { ...started, is_current: true };
  return {
    ...started,
    end_year: yearOf(role.endMonth),
    end_month: monthOf(role.endMonth),
    end_date: formatMonthStart(role.endMonth),
    is_current: false,
  };
}

/** Search Contact experiences add description; their optional values are null rather than absent. */
function toSearchContactExperience(role: SyntheticRole): SearchContactExperience {
  const company = role.employer.company;
  const ended = role.endMonth !== null;
  return {
    title: role.title,
    location: role.location,
    company_name: company.name,
    company_linkedin_id: company.linkedin_id,
    company_linkedin_url: company.linkedin_url,
    company_domain: company.domain,
    description: role.description,
    start_year: yearOf(role.startMonth),
    start_month: monthOf(role.startMonth),
    start_date: formatMonthStart(role.startMonth),
    end_year: ended ? yearOf(role.endMonth) : null,
    end_month: ended ? monthOf(role.endMonth) : null,
    end_date: ended ? formatMonthStart(role.endMonth) : null,
    is_current: !ended,
  };
}
