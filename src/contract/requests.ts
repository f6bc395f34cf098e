/**
 * The launcher requests, validated exactly as the service would, throwing ValidationError with the
 * code it would answer: Company Reveal and Job Change here, Search Contact in its own file and
 * re-exported, so callers import every request parser from this module.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { requestCustomFieldsSchema } from './custom-fields.js';
import { ipv4Schema, nullableStringSchema } from './formats.js';
import { assertRequestBody, emailSchema, fullNameSchema, requestWebhookUrlSchema } from './request-fields.js';
import { isGiven } from './search-contact-fields.js';
import { parseOrThrow } from './validation.js';

export {
  parseSearchContactRequest,
  type SearchContactRequest,
  type SearchContactRequestInput,
  searchContactRequestSchema,
} from './search-contact-request.js';

/** Company Reveal request: ip (dotted-quad IPv4), webhook_url (http(s), ≤2083, or null), custom_fields. */
export const companyRevealRequestSchema = z.looseObject({
  ip: ipv4Schema,
  webhook_url: requestWebhookUrlSchema,
  custom_fields: requestCustomFieldsSchema,
});
/** A validated Company Reveal request: webhook_url null and custom_fields `{}` when omitted. */
export type CompanyRevealRequest = z.output<typeof companyRevealRequestSchema>;
/** What a caller may send. */
export type CompanyRevealRequestInput = z.input<typeof companyRevealRequestSchema>;

/**
 * Validates a Company Reveal request: VALIDATION_MISSING_BODY without a body, VALIDATION_BAD_REQUEST
 * for any broken rule. Extra fields are kept.
 */
export function parseCompanyRevealRequest(body: unknown): CompanyRevealRequest {
  assertRequestBody(body);
  return parseOrThrow(companyRevealRequestSchema, body);
}

const text = nullableStringSchema.optional().transform((v) => v ?? null);

/**
 * Job Change request: the fields its task echoes (each string or null, omitted → null), webhook_url
 * and custom_fields. Emails must look like emails, a full name must be 4 to 250 characters.
 */
export const jobChangeRequestSchema = z.looseObject({
  company_domain: text,
  company_linkedin: text,
  professional_email: emailSchema
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  personal_email: emailSchema
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  contact_linkedin: text,
  contact_full_name: fullNameSchema
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  webhook_url: requestWebhookUrlSchema,
  custom_fields: requestCustomFieldsSchema,
});
/** A validated Job Change request, every task field present (null when omitted). */
export type JobChangeRequest = z.output<typeof jobChangeRequestSchema>;
/** What a caller may send. */
export type JobChangeRequestInput = z.input<typeof jobChangeRequestSchema>;

/** The request fields a Job Change task echoes (Tasks table), before its job_id and context_id. */
export const JOB_CHANGE_TASK_FIELDS = [
  'company_domain',
  'company_linkedin',
  'professional_email',
  'personal_email',
  'contact_linkedin',
  'contact_full_name',
  'custom_fields',
] as const;

/** A Job Change task's echo of `request`: exactly {@link JOB_CHANGE_TASK_FIELDS}, not webhook_url. */
export function jobChangeTaskEcho(request: JobChangeRequest): Record<string, unknown> {
  return Object.fromEntries(JOB_CHANGE_TASK_FIELDS.map((field) => [field, request[field]]));
}

/**
 * Fields that identify the person. The interface does not show the Job Change Launcher's rules; a check
 * needs someone to check, so hooksync (and its simulator) require at least one of these.
 */
export const JOB_CHANGE_PERSON_FIELDS = [
  'contact_linkedin',
  'professional_email',
  'personal_email',
  'contact_full_name',
] as const;

/**
 * Validates a Job Change request: VALIDATION_MISSING_BODY without a body; VALIDATION_BAD_EMAIL_INVALID
 * (or _TOO_LONG past 254 characters) for an email; VALIDATION_BAD_NAME_INVALID for contact_full_name;
 * VALIDATION_BAD_REQUEST for other rules, including no field identifying the person.
 */
export function parseJobChangeRequest(body: unknown): JobChangeRequest {
  assertRequestBody(body);
  const request = parseOrThrow(jobChangeRequestSchema, body);
  if (!JOB_CHANGE_PERSON_FIELDS.some((field) => isGiven(request[field]))) {
    const issue = `person: give at least one of ${JOB_CHANGE_PERSON_FIELDS.join(', ')}`;
    throw new ValidationError('VALIDATION_BAD_REQUEST', `Invalid request: ${issue}`, [issue]);
  }
  return request;
}
