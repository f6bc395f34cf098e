/**
 * The simulator's data: a deterministic synthetic world of companies and people that answers Company
 * Reveal, Search Contact and Job Change. Same options → same world, byte for byte; nothing reads the clock
 * or Math.random. Companies are made up front (fast); staff on first use.
 * Proportions and choices are documented where they are made: reveal-company.ts (reveal outcomes and
 * confidence), search-contacts.ts (modes, filters, paging), find-job-change.ts (statuses and profiles).
 */
import type { Company } from '../../contract/resources.js';
import type { SearchContactRequest } from '../../contract/search-contact-request.js';
import { DEFAULT_REFERENCE_DATE, monthIndexOfDate } from './calendar-month.js';
import { SYNTHETIC_COUNTRIES } from './countries.js';
import { findJobChange, type JobChangeQuery, type SyntheticJobChange } from './find-job-change.js';
import { SYNTHETIC_INDUSTRIES } from './industries.js';
import { createRevealer, type SyntheticReveal } from './reveal-company.js';
import { type SyntheticSearchResult, searchContacts } from './search-contacts.js';
import { MAX_PEOPLE_PER_COMPANY, WorldCatalog } from './world-catalog.js';

export type { JobChangeQuery, SyntheticJobChange } from './find-job-change.js';
export type { SyntheticReveal } from './reveal-company.js';
export type { SyntheticSearchResult } from './search-contacts.js';

/** Companies in a world unless told otherwise. */
export const DEFAULT_COMPANY_COUNT = 400;
/** Average staff per company; each company has 0.5× to 1.5× this, never more than its employees_count. */
export const DEFAULT_PEOPLE_PER_COMPANY = 30;
/** Upper bound on companyCount, to keep creation fast and memory modest. */
export const MAX_COMPANY_COUNT = 100_000;

/** Knobs of {@link createSyntheticWorld}. */
export interface SyntheticWorldOptions {
  /** Determines everything; a number and its decimal string give the same world. */
  seed: string | number;
  /** Number of world companies, 1 to 100 000. Default {@link DEFAULT_COMPANY_COUNT}. */
  companyCount?: number;
  /** Average people per company, 0 to 2000. Default {@link DEFAULT_PEOPLE_PER_COMPANY}. */
  peoplePerCompany?: number;
  /** The world's "today" (YYYY-MM-DD): no role starts and no round is raised after it. Default 2025-06-30. */
  referenceDate?: string;
}

/** A synthetic world: read-only data and the three operations the simulator serves from it. */
export interface SyntheticWorld {
  /** The seed, as a string. */
  readonly seed: string;
  readonly referenceDate: string;
  /** The world's companies (deep-frozen), in their stable order. */
  readonly companies: readonly Company[];
  /** Industry names companies use (title-case, 5 to 57 characters). */
  readonly industries: readonly string[];
  /** Full country names companies and people are in. */
  readonly countries: readonly string[];
  /** Company Reveal output (without usage) for an IPv4 address; TypeError for anything else. */
  revealCompany(ip: string): SyntheticReveal;
  /** One page of Search Contact persons and the total over all pages, for a validated request. */
  searchContacts(request: SearchContactRequest): SyntheticSearchResult;
  /** Job Change output (without usage) for a request's identifying fields. */
  jobChange(request: JobChangeQuery): SyntheticJobChange;
}

/** Creates the world for `options.seed`; TypeError for out-of-range options. */
export function createSyntheticWorld(options: SyntheticWorldOptions): SyntheticWorld {
  const {
    seed,
    companyCount = DEFAULT_COMPANY_COUNT,
    peoplePerCompany = DEFAULT_PEOPLE_PER_COMPANY,
  } = options;
  const referenceDate = options.referenceDate ?? DEFAULT_REFERENCE_DATE;
  if (typeof seed !== 'string' && !(typeof seed === 'number' && Number.isFinite(seed))) {
    throw new TypeError('createSyntheticWorld: seed must be a string or a finite number');
  }
  if (!Number.isInteger(companyCount) || companyCount < 1 || companyCount > MAX_COMPANY_COUNT) {
    throw new TypeError(
      `createSyntheticWorld: companyCount must be an integer from 1 to ${MAX_COMPANY_COUNT}`,
    );
  }
  if (
    !Number.isInteger(peoplePerCompany) ||
    peoplePerCompany < 0 ||
    peoplePerCompany > MAX_PEOPLE_PER_COMPANY
  ) {
    throw new TypeError(
      `createSyntheticWorld: peoplePerCompany must be an integer from 0 to ${MAX_PEOPLE_PER_COMPANY}`,
    );
  }
  const catalog = new WorldCatalog({
    seed: String(seed),
    companyCount,
    peoplePerCompany,
    referenceMonth: monthIndexOfDate(referenceDate),
  });
  const reveal = createRevealer(catalog);
  const companies = Object.freeze(catalog.companies.map((entry) => entry.company));
  return Object.freeze({
    seed: catalog.config.seed,
    referenceDate,
    companies,
    industries: SYNTHETIC_INDUSTRIES,
    countries: Object.freeze(SYNTHETIC_COUNTRIES.map((country) => country.name)),
    revealCompany: reveal,
    searchContacts: (request: SearchContactRequest) => searchContacts(catalog, request),
    jobChange: (request: JobChangeQuery) => findJobChange(catalog, request),
  });
}
