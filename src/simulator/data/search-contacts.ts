/**
 * Search Contact over a synthetic world (interface, Search Contact Launcher: search mode rules and request
 * fields). The mode picks the candidates; every other supplied field then narrows them; pages are slices of
 * one stable order (company order, then staff order), so the same request always yields the same page.
 *
 * Choices where the interface is silent:
 * - Modes are tried in the order contact, company, company-set; within company mode domain wins over
 *   company_linkedin, which wins over company_name. A request with no mode is a caller's error (TypeError).
 * - Unknown LinkedIn profiles, domains, company pages and names are synthesised, not "not found".
 * - Company-set fields combine with AND; values match case-insensitively.
 * - experience_start_date and experience_start_date_new_hire both mean "current role started on or after";
 *   given both, both apply. People without a current role never match them.
 * - Person filters (seniorities, departments, location_countries, names, title_filters) apply in every mode.
 * - title_lists: their fields are not shown by the interface, so they filter nothing.
 */

import { SEARCH_LIMITS } from '../../contract/limits.js';
import type { SearchContactPerson } from '../../contract/resources.js';
import { isGiven } from '../../contract/search-contact-fields.js';
import type { SearchContactRequest } from '../../contract/search-contact-request.js';
import { compileTitleFilter } from '../../contract/title-filter.js';
import { formatMonthStart } from './calendar-month.js';
import { toSearchContactPerson } from './person-views.js';
import type { SyntheticCompany } from './synthesize-company.js';
import type { SyntheticPerson } from './synthesize-person.js';
import { normalizeName, type WorldCatalog } from './world-catalog.js';

/** One page of a search and the number of people matching over all pages. */
export interface SyntheticSearchResult {
  persons: SearchContactPerson[];
  total: number;
}

/** Runs a validated Search Contact request against `catalog`. */
export function searchContacts(catalog: WorldCatalog, request: SearchContactRequest): SyntheticSearchResult {
  const pageNumber = request.page_number ?? SEARCH_LIMITS.pageNumberDefault;
  const pageSize = request.page_size ?? SEARCH_LIMITS.pageSizeDefault;
  if (!isPositiveInteger(pageNumber) || !isPositiveInteger(pageSize)) {
    throw new TypeError('searchContacts: page_number and page_size must be positive integers');
  }
  const keep = personFilter(request);
  const matches = candidates(catalog, request).filter(keep);
  const start = (pageNumber - 1) * pageSize;
  return {
    persons: matches.slice(start, start + pageSize).map(toSearchContactPerson),
    total: matches.length,
  };
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1;
}

function candidates(catalog: WorldCatalog, request: SearchContactRequest): readonly SyntheticPerson[] {
  if (isGiven(request.contact_linkedin)) {
    const person = catalog.personByLinkedin(request.contact_linkedin!);
    return person === undefined ? [] : [person];
  }
  if (isGiven(request.domain) || isGiven(request.company_linkedin) || isGiven(request.company_name)) {
    const company = isGiven(request.domain)
      ? catalog.companyByDomain(request.domain!)
      : isGiven(request.company_linkedin)
        ? catalog.companyByLinkedin(request.company_linkedin!)
        : catalog.companyByName(request.company_name!);
    return company === undefined ? [] : catalog.staffOf(company);
  }
  const countries = lowerSet(request.company_location_countries);
  const industries = lowerSet(request.company_industries);
  const ranges = request.company_employee_ranges ?? [];
  if (countries === undefined && industries === undefined && ranges.length === 0) {
    throw new TypeError(
      'searchContacts: the request gives no search mode (validate it with parseSearchContactRequest)',
    );
  }
  const matching = (entry: SyntheticCompany): boolean => {
    const { country, industry, size } = entry.company;
    return (
      (countries === undefined || (country !== null && countries.has(country.toLowerCase()))) &&
      (industries === undefined || (industry !== null && industries.has(industry.toLowerCase()))) &&
      (ranges.length === 0 || (ranges as readonly string[]).includes(size))
    );
  };
  return catalog.companies.filter(matching).flatMap((company) => catalog.staffOf(company));
}

/** The lower-cased values of a given list, undefined when the list is not given. */
function lowerSet(values: readonly string[] | null | undefined): Set<string> | undefined {
  return values === null || values === undefined || values.length === 0
    ? undefined
    : new Set(values.map((value) => value.trim().toLowerCase()));
}

function personFilter(request: SearchContactRequest): (person: SyntheticPerson) => boolean {
  const tests: ((person: SyntheticPerson) => boolean)[] = [];
  for (const since of [request.experience_start_date, request.experience_start_date_new_hire]) {
    if (typeof since === 'string' && since.length > 0) {
      // Start dates are written YYYY-MM-01, so comparing the strings compares the dates.
      tests.push((p) => p.current !== null && formatMonthStart(p.current.startMonth) >= since);
    }
  }
  if (isGiven(request.seniorities)) {
    const wanted = new Set<string>(request.seniorities);
    tests.push((p) => p.current !== null && wanted.has(p.seniority));
  }
  if (isGiven(request.departments)) {
    const wanted = new Set<string>(request.departments);
    tests.push((p) => p.current !== null && wanted.has(p.department));
  }
  const countries = lowerSet(request.location_countries);
  if (countries !== undefined) tests.push((p) => countries.has(p.country.toLowerCase()));
  if (isGiven(request.included_names)) {
    const names = new Set(request.included_names!.map(normalizeName));
    tests.push((p) => names.has(normalizeName(p.fullName)));
  }
  if (isGiven(request.excluded_names)) {
    const names = new Set(request.excluded_names!.map(normalizeName));
    tests.push((p) => !names.has(normalizeName(p.fullName)));
  }
  if (isGiven(request.title_filters)) {
    const filters = request.title_filters!.map((item) => compileTitleFilter(item.filter));
    tests.push((p) => p.current !== null && filters.some((matches) => matches(p.current!.title)));
  }
  return (person) => tests.every((test) => test(person));
}
