/**
 * The Search Contact Launcher request, validated as the service would (Search Contact Launcher: mode
 * rules and request fields; Title filter expression syntax), with the code it would answer.
 */
import { z } from 'zod';
import { type ValidationCode, ValidationError } from '../errors.js';
import { requestCustomFieldsSchema } from './custom-fields.js';
import { SEARCH_LIMITS } from './limits.js';
import { assertRequestBody, requestDomainSchema, requestWebhookUrlSchema } from './request-fields.js';
import {
  isGiven,
  pageNumberSchema,
  pageSizeSchema,
  SEARCH_MODES,
  searchContactFieldShape,
  searchModesOf,
} from './search-contact-fields.js';
import { parseTitleFilter } from './title-filter.js';
import { parseOrThrow } from './validation.js';

/**
 * The request's fields with the interface's rules; `domain` reduced to the bare domain, page_number
 * and page_size defaulted, webhook_url null and custom_fields `{}` when omitted. Extra fields are kept.
 */
export const searchContactRequestSchema = z.looseObject({
  ...searchContactFieldShape,
  domain: requestDomainSchema.optional(),
  page_number: pageNumberSchema.default(SEARCH_LIMITS.pageNumberDefault),
  page_size: pageSizeSchema.default(SEARCH_LIMITS.pageSizeDefault),
  webhook_url: requestWebhookUrlSchema,
  custom_fields: requestCustomFieldsSchema,
});
/** A validated Search Contact request, defaults applied. */
export type SearchContactRequest = z.output<typeof searchContactRequestSchema>;
/** What a caller may send: every default optional. */
export type SearchContactRequestInput = z.input<typeof searchContactRequestSchema>;

function fail(code: ValidationCode, issues: string[]): never {
  throw new ValidationError(code, `Invalid request: ${issues[0]}`, issues);
}

const MODE_WORDS = Object.values(SEARCH_MODES)
  .map((names) => names.join(' / '))
  .join(' | ');

/** Exactly one search mode; company-set search also needs a start date and title filters or lists. */
function checkModes(request: SearchContactRequest): void {
  const modes = searchModesOf(request);
  if (modes.length !== 1) {
    const got = modes.length === 0 ? 'none' : modes.join(' and ');
    fail('VALIDATION_BAD_REQUEST', [`search mode: give exactly one of ${MODE_WORDS} (got ${got})`]);
  }
  if (modes[0] !== 'company_set') return;
  const issues: string[] = [];
  let code: ValidationCode = 'VALIDATION_BAD_REQUEST';
  if (!isGiven(request.experience_start_date) && !isGiven(request.experience_start_date_new_hire)) {
    issues.push(
      'experience_start_date: experience_start_date or experience_start_date_new_hire is required in company-set search',
    );
  }
  if (!isGiven(request.title_filters) && !isGiven(request.title_lists)) {
    issues.push('title_filters: title_filters or title_lists is required in company-set search');
    code = 'VALIDATION_MISSING_TITLE_FILTERS';
  }
  if (issues.length > 0) fail(code, issues);
}

/**
 * Validates a Search Contact request and returns it normalised (see {@link searchContactRequestSchema}).
 * Throws ValidationError: VALIDATION_MISSING_BODY without a body; VALIDATION_BAD_DOMAIN* for a bad
 * domain; VALIDATION_BAD_NAME_INVALID for a bad name in excluded_names / included_names; the
 * VALIDATION_BAD_TITLE_FILTER* code of parseTitleFilter as it threw it; VALIDATION_MISSING_TITLE_FILTERS
 * for a company-set search without title filters or lists; VALIDATION_BAD_REQUEST for the rest.
 * "One of" within a mode means at least one: several identifiers of the same company may be combined.
 */
export function parseSearchContactRequest(body: unknown): SearchContactRequest {
  assertRequestBody(body);
  const request = parseOrThrow(searchContactRequestSchema, body);
  checkModes(request);
  for (const item of request.title_filters ?? []) parseTitleFilter(item.filter);
  return request;
}
