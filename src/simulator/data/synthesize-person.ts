/**
 * One synthetic person, fully determined by its key: name, profile, current role at an employer and a
 * career of earlier roles. Views for the Search Contact and Job Change outputs are in person-views.ts.
 */
import type { Department, Seniority } from '../../contract/enums.js';
import { toAsciiSlug } from './ascii-slug.js';
import type { MonthIndex } from './calendar-month.js';
import { toMonthIndex } from './calendar-month.js';
import { SYNTHETIC_COUNTRIES, type SyntheticCity, type SyntheticCountry } from './countries.js';
import { composeJobTitle, DEPARTMENT_WEIGHTS, SENIORITY_WEIGHTS } from './job-titles.js';
import { personLinkedinUrl } from './linkedin-handle.js';
import { NAME_POOLS } from './person-names.js';
import { describeRole, writeAbout } from './profile-texts.js';
import { createSeededRandom, type SeededRandom, type SeedPart } from './seeded-random.js';
import type { SyntheticCompany } from './synthesize-company.js';

/** One role of a career; `endMonth` null while it is the current role. */
export interface SyntheticRole {
  readonly title: string;
  readonly employer: SyntheticCompany;
  readonly location: string;
  readonly description: string | null;
  readonly startMonth: MonthIndex;
  readonly endMonth: MonthIndex | null;
}

/** A generated person; `current` is null for someone without a current role (a job change "left"). */
export interface SyntheticPerson {
  readonly id: string;
  readonly firstName: string;
  readonly lastName: string;
  /** "first last", as included_names / excluded_names name people. */
  readonly fullName: string;
  /** Lower-cased LinkedIn handle; also the person's linkedin_id. */
  readonly linkedinHandle: string;
  readonly linkedinUrl: string;
  readonly about: string | null;
  readonly location: string;
  readonly country: string;
  readonly department: Department;
  readonly seniority: Seniority;
  readonly current: SyntheticRole | null;
  /** Every role, newest first: the current one (if any), then past ones with an end month. */
  readonly roles: readonly SyntheticRole[];
}

/** What makes a person: a key, an employer, and the facts a request already fixed. */
export interface PersonSpec {
  /** Seed parts that determine everything not fixed below. */
  readonly key: readonly SeedPart[];
  readonly employer: SyntheticCompany;
  /** Position in the employer's staff: 0 is the head of the company. */
  readonly index: number;
  readonly referenceMonth: MonthIndex;
  /** Draws the employer of an earlier role (from the world's companies). */
  readonly pastEmployer: (random: SeededRandom) => SyntheticCompany;
  /** A LinkedIn handle a request named (lower-cased). */
  readonly linkedinHandle?: string;
  /** The end of the generated handle ("jane-doe-<suffix>"); 8 random hex digits by default. */
  readonly handleSuffix?: string;
  readonly firstName?: string;
  readonly lastName?: string;
}

/** The share of people who live in another country than their employer's (remote staff). */
const ABROAD_SHARE = 0.12;
/** Longest tenure in the current role, in months. */
const MAX_TENURE_MONTHS = 144;

/** The person that `spec` describes; the same spec always gives the same person. */
export function synthesizePerson(spec: PersonSpec): SyntheticPerson {
  const random = createSeededRandom(...spec.key);
  const employer = spec.employer;
  const abroad = random.chance(ABROAD_SHARE);
  const country = abroad ? random.pick(SYNTHETIC_COUNTRIES) : employer.country;
  const city = abroad
    ? random.pick(country.cities)
    : random.chance(0.7)
      ? employer.city
      : random.pick(country.cities);
  const pool = NAME_POOLS[random.pick(country.namePools)];
  const first = random.pick(pool.first);
  const last = random.pick(pool.last);
  const firstName = spec.firstName ?? first.display;
  const lastName = spec.lastName ?? last.display;
  // Drawn even when unused, so that every later draw is the same whichever facts the spec fixes.
  const randomSuffix = random.hex(8);
  const firstAscii = spec.firstName === undefined ? first.ascii : toAsciiSlug(spec.firstName, '');
  const lastAscii = spec.lastName === undefined ? last.ascii : toAsciiSlug(spec.lastName, '');
  const handle =
    spec.linkedinHandle ??
    `${firstAscii || 'member'}-${lastAscii || 'profile'}-${spec.handleSuffix ?? randomSuffix}`;
  const head = spec.index === 0 || (spec.index < 3 && random.chance(0.2));
  const department: Department = head ? 'Leadership' : random.weighted(DEPARTMENT_WEIGHTS);
  const seniority: Seniority = head
    ? random.pick(['Owner', 'CXO'] as const)
    : random.weighted(SENIORITY_WEIGHTS);
  const title = decorateTitle(random, composeJobTitle(random, department, seniority));
  const location = formatLocation(city, country);

  const founded = employer.company.founded;
  const earliestStart = founded === null ? spec.referenceMonth - MAX_TENURE_MONTHS : toMonthIndex(founded, 1);
  // Short tenures are the most common; u² skews towards them with exact arithmetic only.
  const u = random.next();
  const tenure = 1 + Math.floor((MAX_TENURE_MONTHS - 1) * u * u);
  const startMonth =
    head && founded !== null && founded > 1990
      ? earliestStart + random.int(0, 11)
      : Math.max(earliestStart, spec.referenceMonth - tenure);
  const current: SyntheticRole = {
    title,
    employer,
    location,
    description: describeRole(random, title),
    startMonth: Math.min(startMonth, spec.referenceMonth),
    endMonth: null,
  };
  const roles = [current, ...pastRoles(random, spec, department, seniority, current.startMonth)];
  return {
    id: random.uuid(),
    firstName,
    lastName,
    fullName: `${firstName} ${lastName}`,
    linkedinHandle: handle,
    linkedinUrl: personLinkedinUrl(handle),
    about: writeAbout(random, title, employer.company.name),
    location,
    country: country.name,
    department,
    seniority,
    current,
    roles,
  };
}

/** "City, State, Country", without the parts a place lacks. */
export function formatLocation(city: SyntheticCity, country: SyntheticCountry): string {
  return [city.city, city.state === city.city ? null : city.state, country.name]
    .filter((part) => part !== null)
    .join(', ');
}

/** The seniority one step below, for earlier roles of a career. */
const JUNIOR_OF: Readonly<Record<Seniority, Seniority>> = {
  Owner: 'Director',
  CXO: 'Vice President',
  Partner: 'Director',
  'Vice President': 'Director',
  Director: 'Manager',
  Manager: 'Senior',
  Senior: 'Entry',
  Entry: 'Entry',
  Other: 'Other',
};

function pastRoles(
  random: SeededRandom,
  spec: PersonSpec,
  department: Department,
  seniority: Seniority,
  before: MonthIndex,
): SyntheticRole[] {
  const roles: SyntheticRole[] = [];
  const count = seniority === 'Entry' ? random.int(0, 1) : random.int(0, 4);
  let end = before - random.int(0, 3);
  let level = seniority;
  for (let i = 0; i < count; i += 1) {
    const start = end - random.int(6, 60);
    level = random.chance(0.6) ? JUNIOR_OF[level] : level;
    const pastDepartment = level === 'Owner' || level === 'CXO' ? 'Leadership' : department;
    const employer = spec.pastEmployer(random);
    const title = composeJobTitle(random, pastDepartment, level);
    roles.push({
      title,
      employer,
      location: formatLocation(employer.city, employer.country),
      description: describeRole(random, title),
      startMonth: start,
      endMonth: end,
    });
    end = start - random.int(0, 4);
  }
  return roles;
}

/**
 * About one title in a hundred starts with "-" or "+", as some profiles do; exports' formula guard must
 * neutralise them (house style: golden CSV files with leading = + - @).
 */
function decorateTitle(random: SeededRandom, title: string): string {
  const u = random.next();
  if (u < 0.006) return `-${title}`;
  if (u < 0.012) return `+${title}`;
  return title;
}
