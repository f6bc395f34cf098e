/**
 * Request fields shared by the launchers: webhook_url, company domains (plain or as a URL), emails and
 * full names, with the service codes their failures answer.
 */
import { z } from 'zod';
import { type ValidationCode, ValidationError } from '../errors.js';
import { isPlainObject } from './custom-fields.js';
import { boundedString, isHttpUrl, typeError } from './formats.js';
import { SEARCH_LIMITS, WEBHOOK_URL_MAX_LENGTH } from './limits.js';
import { withCode } from './validation.js';

/** webhook_url as a task echoes it: an http(s) URI of at most 2083 characters, or null. */
export const webhookUrlSchema = z
  .string(typeError('must be a URL string or null'))
  .max(WEBHOOK_URL_MAX_LENGTH, { error: `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters long` })
  .refine(isHttpUrl, { error: 'must be an absolute http or https URL' })
  .nullable();

/** webhook_url as a request field: omitted becomes null. */
export const requestWebhookUrlSchema = webhookUrlSchema.optional().transform((value) => value ?? null);

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The bare company domain of a Search Contact `domain` given plainly or as a URL
 * (`https://www.acme.com:8443/about?x#y` → `acme.com`): scheme, user info, port, path, query,
 * fragment, a trailing dot and one leading `www.` are dropped; the rest is lower-cased.
 */
export function extractDomain(input: string): string {
  let host = input.trim().replace(SCHEME, '');
  if (host.startsWith('//')) host = host.slice(2);
  host = host.split(/[/?#]/, 1)[0] ?? '';
  const at = host.lastIndexOf('@');
  if (at >= 0) host = host.slice(at + 1);
  host = host.replace(/:\d*$/, '').replace(/\.$/, '').toLowerCase();
  // `www.com` is a domain of its own: only strip `www.` when a registrable name remains.
  return host.startsWith('www.') && host.indexOf('.', 4) > 4 ? host.slice(4) : host;
}

const DOMAIN_CHARS = /^[a-z0-9.-]+$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * What is wrong with a bare domain, or undefined when it is fine: characters outside `a-z 0-9 . -`
 * (internationalised names must be sent as punycode) → VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS;
 * no dot, an empty or malformed label, or no alphabetic TLD → VALIDATION_BAD_DOMAIN.
 */
export function domainProblem(domain: string): { code: ValidationCode; message: string } | undefined {
  if (domain !== '' && !DOMAIN_CHARS.test(domain)) {
    return {
      code: 'VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS',
      message: `domain ${JSON.stringify(domain)} may hold only letters, digits, dots and hyphens`,
    };
  }
  const labels = domain.split('.');
  const tld = labels[labels.length - 1] ?? '';
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)) || !TLD.test(tld)) {
    return {
      code: 'VALIDATION_BAD_DOMAIN',
      message: `${JSON.stringify(domain)} is not a domain name with a top-level domain, e.g. acme.com`,
    };
  }
  return undefined;
}

/** Search Contact `domain`: 4-500 characters as sent, then reduced to the bare domain and checked. */
export const requestDomainSchema = boundedString(SEARCH_LIMITS.domainMin, SEARCH_LIMITS.domainMax).transform(
  (raw, ctx) => {
    const domain = extractDomain(raw);
    const problem = domainProblem(domain);
    if (problem === undefined) return domain;
    ctx.issues.push({ code: 'custom', input: raw, message: problem.message, params: { code: problem.code } });
    return z.NEVER;
  },
);

/** RFC 5321 caps a forward path at 254 characters. */
export const EMAIL_MAX_LENGTH = 254;
/** A local part, an @ and a dotted domain without spaces: the shape of an email, not a deliverability check. */
export const EMAIL_PATTERN = /^[^\s@]{1,64}@(?:[^\s@.]+\.)+[^\s@.]{2,}$/;

/** An email address (VALIDATION_BAD_EMAIL_TOO_LONG past 254 characters, else VALIDATION_BAD_EMAIL_INVALID). */
export const emailSchema = z
  .string(typeError('must be an email address string or null'))
  .refine((v) => v.length <= EMAIL_MAX_LENGTH, {
    error: `must be at most ${EMAIL_MAX_LENGTH} characters long`,
    ...withCode('VALIDATION_BAD_EMAIL_TOO_LONG'),
    abort: true,
  })
  .refine((v) => EMAIL_PATTERN.test(v), {
    error: 'must be an email address like jane@acme.com',
    ...withCode('VALIDATION_BAD_EMAIL_INVALID'),
  });

/** A person's full name, 4 to 250 characters (VALIDATION_BAD_NAME_INVALID otherwise). */
export const fullNameSchema = z
  .string(typeError('must be a full name string'))
  .refine((v) => v.length >= SEARCH_LIMITS.fullNameMin && v.length <= SEARCH_LIMITS.fullNameMax, {
    error: `must be a full name of ${SEARCH_LIMITS.fullNameMin} to ${SEARCH_LIMITS.fullNameMax} characters`,
    ...withCode('VALIDATION_BAD_NAME_INVALID'),
  });

/**
 * Refuses a body that is not a JSON object: none at all (undefined or null) is VALIDATION_MISSING_BODY,
 * anything else that is not an object VALIDATION_BAD_REQUEST (Company Reveal Launcher, errors).
 */
export function assertRequestBody(body: unknown): asserts body is Record<string, unknown> {
  if (body === undefined || body === null) {
    throw new ValidationError('VALIDATION_MISSING_BODY', 'Request body is required', ['body: is required']);
  }
  if (!isPlainObject(body)) {
    const got = Array.isArray(body) ? 'an array' : typeof body;
    const issue = `body: must be a JSON object, got ${got}`;
    throw new ValidationError('VALIDATION_BAD_REQUEST', `Invalid request: ${issue}`, [issue]);
  }
}
