/**
 * The fields of the Search Contact request (Search Contact Launcher, request fields table), each with
 * its type and limits. Shared by the request parser and the Search Contact task schema.
 */
import { z } from 'zod';
import { departmentSchema, employeeRangeSchema, senioritySchema } from './enums.js';
import { boundedString, isoDateSchema, typeError } from './formats.js';
import { SEARCH_LIMITS as L } from './limits.js';
import { fullNameSchema } from './request-fields.js';

function listOf<T extends z.ZodType>(item: T, max?: number) {
  const list = z.array(item, typeError('must be an array or null'));
  return (max === undefined ? list : list.max(max, { error: `must have at most ${max} items` }))
    .nullable()
    .optional();
}

function intRange(min: number, max: number) {
  const rule = `must be an integer from ${min} to ${max}`;
  return z.int(typeError(rule)).min(min, { error: rule }).max(max, { error: rule });
}

/** One title_filters item: a name and a Boolean title expression (parsed separately). */
export const titleFilterItemSchema = z.looseObject({
  name: z.string(typeError('must be a string')),
  filter: z.string(typeError('must be a title filter expression string')),
});
export type TitleFilterItem = z.output<typeof titleFilterItemSchema>;

/** One title_lists item: its fields are not shown by the interface, so any object is accepted. */
export const titleListItemSchema = z.looseObject({}, typeError('must be an object'));

/** page_number: 1 to 100. */
export const pageNumberSchema = intRange(L.pageNumberMin, L.pageNumberMax);
/** page_size: 1 to 250. */
export const pageSizeSchema = intRange(L.pageSizeMin, L.pageSizeMax);

const linkedin = boundedString(L.linkedinMin, L.linkedinMax);
const country = boundedString(L.countryMin, L.countryMax);
const date = isoDateSchema.nullable().optional();

/**
 * Every field of the request as the task echoes it. `domain` and `company_name` are typed "string"
 * (not "or null") by the interface, so null is refused for them.
 */
export const searchContactFieldShape = {
  contact_linkedin: linkedin.nullable().optional(),
  domain: boundedString(L.domainMin, L.domainMax).optional(),
  company_linkedin: linkedin.nullable().optional(),
  company_name: boundedString(L.companyNameMin, L.companyNameMax).optional(),
  excluded_names: listOf(fullNameSchema, L.excludedNamesMax),
  included_names: listOf(fullNameSchema, L.includedNamesMax),
  title_filters: listOf(titleFilterItemSchema, L.titleFiltersMax),
  title_lists: listOf(titleListItemSchema, L.titleListsMax),
  departments: listOf(departmentSchema),
  seniorities: listOf(senioritySchema),
  location_countries: listOf(country, L.countriesMax),
  company_location_countries: listOf(country, L.countriesMax),
  company_industries: listOf(boundedString(L.industryMin, L.industryMax), L.industriesMax),
  company_employee_ranges: listOf(employeeRangeSchema, L.employeeRangesMax),
  experience_start_date: date,
  experience_start_date_new_hire: date,
  page_number: pageNumberSchema.optional(),
  page_size: pageSizeSchema.optional(),
};

/** The three search modes; a request uses exactly one (Search mode rules). */
export const SEARCH_MODES = Object.freeze({
  contact: ['contact_linkedin'],
  company: ['domain', 'company_linkedin', 'company_name'],
  company_set: ['company_location_countries', 'company_industries', 'company_employee_ranges'],
} as const);
export type SearchMode = keyof typeof SEARCH_MODES;

/** True when a field counts as given: present, not null, and not an empty list or string. */
export function isGiven(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value) || typeof value === 'string') return value.length > 0;
  return true;
}

/** The modes whose fields `fields` gives (null and empty lists do not count). */
export function searchModesOf(fields: Readonly<Record<string, unknown>>): SearchMode[] {
  return (Object.keys(SEARCH_MODES) as SearchMode[]).filter((mode) =>
    SEARCH_MODES[mode].some((name) => isGiven(fields[name])),
  );
}
