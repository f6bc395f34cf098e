/**
 * The interface's resources (Resources and their fields) as zod schemas and types: Company, funding,
 * Usage, experiences, persons and the three outputs.
 *
 * Objects are loose: fields the interface does not list survive parsing (it grows by minor versions).
 * Where a table lists a field with its type, the field is required and typed as stated, null only where
 * the table says "or null". Person and experience fields whose scalar types the interface does not show
 * ("not shown") are optional strings or null; the ones it does type (UUIDs, dates, integers, booleans,
 * the seniority and department enums) are checked when present.
 */
import { z } from 'zod';
import { isPlainObject } from './custom-fields.js';
import {
  companyRevealTypeSchema,
  confidenceScoreSchema,
  departmentSchema,
  jobChangeStatusSchema,
  senioritySchema,
} from './enums.js';
import {
  boundedString,
  int32Schema,
  int64Schema,
  ipv4Schema,
  isoDateSchema,
  nullableStringSchema,
  typeError,
  uriSchema,
  uuidSchema,
} from './formats.js';

/** Exactly `{}`. */
export type EmptyObject = Record<string, never>;

/**
 * Exactly `{}`: the Company Reveal `company` and Job Change `person` when there is nothing to show.
 * A custom check rather than a strict object, so that in "Company or {}" a Company with a bad field
 * reports that field rather than "unexpected keys".
 */
export const emptyObjectSchema = z.custom<EmptyObject>(
  (value) => isPlainObject(value) && Object.keys(value).length === 0,
  typeError('must be an empty object {}'),
);

/** FundingRound (Company object). */
export const fundingRoundSchema = z.looseObject({
  round_name: z.string(),
  round_date: isoDateSchema,
  investor_count: int32Schema,
  amount_raised_usd: int64Schema,
  investor_names: z.array(z.string()),
});
export type FundingRound = z.output<typeof fundingRoundSchema>;

/** FundingDetails (Company object). */
export const fundingDetailsSchema = z.looseObject({
  total_funding_rounds: int32Schema,
  total_funding_usd: int64Schema,
  funding_rounds: z.array(fundingRoundSchema),
});
export type FundingDetails = z.output<typeof fundingDetailsSchema>;

/** The Company object, with the interface's length rules. */
export const companySchema = z.looseObject({
  id: uuidSchema,
  domain: boundedString(4, 500),
  name: boundedString(3, 500),
  website: boundedString(4, 500),
  linkedin_id: nullableStringSchema,
  description: nullableStringSchema,
  logo_url: uriSchema.nullable(),
  size: z.string(),
  employees_count: int32Schema.nullable(),
  industry: nullableStringSchema,
  type: nullableStringSchema,
  founded: int32Schema.nullable(),
  address: z.string(),
  country: boundedString(1, 200).nullable(),
  linkedin_url: uriSchema.nullable(),
  linkedin_followers: int32Schema.nullable(),
  crunchbase_url: uriSchema.nullable(),
  funding_details: fundingDetailsSchema,
  recent_job_posting_count: int32Schema.nullable(),
  technologies: z.array(z.string()),
});
export type Company = z.output<typeof companySchema>;

/** Usage: per-job cost and balance snapshot; all fields required. */
export const usageSchema = z.looseObject({
  total_usd: z.number(),
  balance_remaining_usd: z.number(),
  persons_count: int64Schema,
  persons_usd: z.number(),
  phones_count: int64Schema,
  phones_usd: z.number(),
  companies_count: int64Schema,
  companies_usd: z.number(),
});
export type Usage = z.output<typeof usageSchema>;

const month = z.int(typeError('must be an integer month')).min(1).max(12);

/** Experience as Job Change persons carry it: end_* present for past roles only. */
export const jobChangeExperienceSchema = z.looseObject({
  title: nullableStringSchema.optional(),
  location: nullableStringSchema.optional(),
  company_name: nullableStringSchema.optional(),
  company_linkedin_id: nullableStringSchema.optional(),
  company_linkedin_url: nullableStringSchema.optional(),
  company_domain: nullableStringSchema.optional(),
  start_year: z.int().optional(),
  start_month: month.optional(),
  start_date: isoDateSchema.optional(),
  end_year: z.int().optional(),
  end_month: month.optional(),
  end_date: isoDateSchema.optional(),
  is_current: z.boolean(),
});
export type JobChangeExperience = z.output<typeof jobChangeExperienceSchema>;

/** Experience as Search Contact persons carry it: adds description; optional values may be null. */
export const searchContactExperienceSchema = jobChangeExperienceSchema.extend({
  description: nullableStringSchema.optional(),
  start_year: z.int().nullish(),
  start_month: month.nullish(),
  start_date: isoDateSchema.nullish(),
  end_year: z.int().nullish(),
  end_month: month.nullish(),
  end_date: isoDateSchema.nullish(),
});
export type SearchContactExperience = z.output<typeof searchContactExperienceSchema>;
/** Either flavour of experience. */
export type Experience = JobChangeExperience | SearchContactExperience;

/** Profile fields Job Change and Search Contact persons share. */
const profileShape = {
  id: uuidSchema,
  first_name: nullableStringSchema.optional(),
  last_name: nullableStringSchema.optional(),
  linkedin_id: nullableStringSchema.optional(),
  linkedin_url: nullableStringSchema.optional(),
  about: nullableStringSchema.optional(),
  location: nullableStringSchema.optional(),
  country: nullableStringSchema.optional(),
  company_linkedin_id: nullableStringSchema.optional(),
  company_name: nullableStringSchema.optional(),
  company_domain: nullableStringSchema.optional(),
  title: nullableStringSchema.optional(),
  seniority: senioritySchema.nullable().optional(),
  department: departmentSchema.nullable().optional(),
};

/** The person of a Job Change output when job_change_status is moved or left. */
export const jobChangePersonSchema = z.looseObject({
  ...profileShape,
  experiences: z.array(jobChangeExperienceSchema),
});
export type JobChangePerson = z.output<typeof jobChangePersonSchema>;

/** Search Contact never returns contact channels: these are always null (Search Contact output). */
const alwaysNull = z
  .null(typeError('must be null (Search Contact never returns contact channels)'))
  .optional();

/** A person of a Search Contact output: profile data only, channel and verification fields null. */
export const searchContactPersonSchema = z.looseObject({
  ...profileShape,
  company_id: uuidSchema.nullable().optional(),
  experiences: z.array(searchContactExperienceSchema),
  personal_email: alwaysNull,
  professional_email: alwaysNull,
  mobile_phone: alwaysNull,
  phone_numbers: z
    .array(z.never())
    .max(0, { error: 'must be empty (Search Contact never returns phones)' })
    .optional(),
  email_verified: alwaysNull,
  email_confidence: alwaysNull,
  email_verified_status: alwaysNull,
  domain_age_days: alwaysNull,
  smtp_provider: alwaysNull,
  mx_record: alwaysNull,
});
export type SearchContactPerson = z.output<typeof searchContactPersonSchema>;

/** ip_geo of a Company Reveal output. */
export const ipGeoSchema = z.looseObject({
  city: nullableStringSchema,
  state: nullableStringSchema,
  country: nullableStringSchema,
});
export type IpGeo = z.output<typeof ipGeoSchema>;

/** Company Reveal output; `company` is a Company or exactly `{}` when no company is behind the IP. */
export const companyRevealOutputSchema = z.looseObject({
  ip: ipv4Schema.nullable(),
  type: companyRevealTypeSchema.nullable(),
  confidence_score: confidenceScoreSchema.nullable(),
  ip_geo: ipGeoSchema,
  company: z.union([emptyObjectSchema, companySchema], typeError('must be a Company object or {}')),
  usage: usageSchema,
});
export type CompanyRevealOutput = z.output<typeof companyRevealOutputSchema>;

/** Job Change output: a person when moved or left, exactly `{}` when no_change or unknown. */
export const jobChangeOutputSchema = z.discriminatedUnion('job_change_status', [
  z.looseObject({
    job_change_status: z.enum(['moved', 'left']),
    person: jobChangePersonSchema,
    usage: usageSchema,
  }),
  z.looseObject({
    job_change_status: z.enum(['no_change', 'unknown']),
    person: emptyObjectSchema,
    usage: usageSchema,
  }),
]);
export type JobChangeOutput = z.output<typeof jobChangeOutputSchema>;

/** Search Contact output: one page of persons and the usage. */
export const searchContactOutputSchema = z.looseObject({
  persons: z.array(searchContactPersonSchema),
  usage: usageSchema,
});
export type SearchContactOutput = z.output<typeof searchContactOutputSchema>;

/**
 * Outputs of jobs that are not SUCCEEDED (RUNNING ones above all): every field may be missing, but the
 * fields that are there must fit (Job envelope: "absent or partial while not finished").
 */
export const partialCompanyRevealOutputSchema = companyRevealOutputSchema.partial();
export const partialJobChangeOutputSchema = z.looseObject({
  job_change_status: jobChangeStatusSchema.optional(),
  person: z
    .union([emptyObjectSchema, jobChangePersonSchema], typeError('must be a person object or {}'))
    .optional(),
  usage: usageSchema.optional(),
});
export const partialSearchContactOutputSchema = searchContactOutputSchema.partial();
