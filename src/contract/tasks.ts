/**
 * input.task objects (Resources, input.task objects): the request echoed back plus job_id and
 * context_id; custom_fields always an object. Loose, so fields of later versions survive.
 */
import { z } from 'zod';
import { customFieldsSchema } from './custom-fields.js';
import { ipv4Schema, nullableStringSchema, uuidSchema } from './formats.js';
import { webhookUrlSchema } from './request-fields.js';
import { searchContactFieldShape } from './search-contact-fields.js';

/** Members every task carries. */
const taskIdentity = {
  job_id: uuidSchema,
  context_id: uuidSchema,
  custom_fields: customFieldsSchema,
};

/** The Company Reveal task: ip, webhook_url (string or null), custom_fields, job_id, context_id. */
export const companyRevealTaskSchema = z.looseObject({
  ip: ipv4Schema,
  webhook_url: webhookUrlSchema.optional(),
  ...taskIdentity,
});
export type CompanyRevealTask = z.output<typeof companyRevealTaskSchema>;

/** The Job Change task: the six contact/company fields (each string or null), custom_fields, ids. */
export const jobChangeTaskSchema = z.looseObject({
  company_domain: nullableStringSchema.optional(),
  company_linkedin: nullableStringSchema.optional(),
  professional_email: nullableStringSchema.optional(),
  personal_email: nullableStringSchema.optional(),
  contact_linkedin: nullableStringSchema.optional(),
  contact_full_name: nullableStringSchema.optional(),
  ...taskIdentity,
});
export type JobChangeTask = z.output<typeof jobChangeTaskSchema>;

/** The Search Contact task: the request's fields (with their limits), custom_fields, ids. */
export const searchContactTaskSchema = z.looseObject({
  ...searchContactFieldShape,
  ...taskIdentity,
});
export type SearchContactTask = z.output<typeof searchContactTaskSchema>;
