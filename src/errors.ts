/**
 * hooksync's error model: every code as a closed union (a typo fails to compile), one base class with a code
 * from those unions, a subclass per family. A caller's misuse of a function throws TypeError; bad external
 * data or a failing service throws these. This module imports nothing of ours: `contract/` builds on it.
 */

// The service's codes (interface, Errors part): the one list of them. Their pattern, category and HTTP
// status are the interface's rules, in contract/error-codes.ts.

/** The error categories of the interface; a code's prefix always equals its category. */
export const ERROR_CATEGORIES = [
  'AUTH',
  'PERMISSION',
  'QUOTA',
  'VALIDATION',
  'NOT_FOUND',
  'RATE_LIMIT',
  'ROUTING',
  'INTERNAL',
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/** All error codes, in the interface's order. */
export const ERROR_CODES = [
  'AUTH_BAD_API_KEY',
  'AUTH_MISSING_API_KEY',
  'AUTH_NEED_MASTER_API_KEY',
  'PERMISSION_FEATURE_NOT_ENABLED',
  'PERMISSION_INCLUDE_PHONES_REQUIRES_PHONE_ENRICHMENT',
  'PERMISSION_NEED_ADMIN_API_KEY',
  'QUOTA_ACCOUNT_OVER_QUOTA',
  'VALIDATION_BAD_DOMAIN',
  'VALIDATION_BAD_DOMAIN_DISPOSABLE',
  'VALIDATION_BAD_DOMAIN_EMAIL_PROVIDER',
  'VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS',
  'VALIDATION_BAD_DOMAIN_NO_MX',
  'VALIDATION_BAD_DOMAIN_PROVIDER_DOMAIN',
  'VALIDATION_BAD_DOMAIN_SERVICE_DOMAIN',
  'VALIDATION_BAD_DOMAIN_SOCIAL_MEDIA',
  'VALIDATION_BAD_DOMAIN_TOP_LEVEL',
  'VALIDATION_BAD_DOMAIN_URL_SHORTENER',
  'VALIDATION_BAD_EMAIL_CONSECUTIVE_DIGITS',
  'VALIDATION_BAD_EMAIL_INVALID',
  'VALIDATION_BAD_EMAIL_PERSONAL_NOT_ALLOWED',
  'VALIDATION_BAD_EMAIL_PROFESSIONAL_NOT_ALLOWED',
  'VALIDATION_BAD_EMAIL_ROLE',
  'VALIDATION_BAD_EMAIL_TOO_LONG',
  'VALIDATION_BAD_EMAIL_TOO_MANY_DIGITS',
  'VALIDATION_BAD_JOB_ID',
  'VALIDATION_BAD_NAME_INVALID',
  'VALIDATION_BAD_REQUEST',
  'VALIDATION_BAD_TITLE_FILTER',
  'VALIDATION_BAD_TITLE_FILTER_EXTRA_LEFT_PARENTHESIS',
  'VALIDATION_BAD_TITLE_FILTER_EXTRA_RIGHT_PARENTHESIS',
  'VALIDATION_BAD_TITLE_FILTER_EXTRA_STRING',
  'VALIDATION_BAD_TITLE_FILTER_MISSING_RIGHT_PARENTHESIS',
  'VALIDATION_BAD_TITLE_FILTER_MISSING_STRING',
  'VALIDATION_BAD_TITLE_FILTER_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS',
  'VALIDATION_CANNOT_EDIT_MASTER_API_KEY',
  'VALIDATION_MISSING_BODY',
  'VALIDATION_MISSING_JOB_ID_PARAMETER',
  'VALIDATION_MISSING_TITLE_FILTERS',
  'VALIDATION_SUBKEY_RATE_EXCEEDS_MASTER',
  'NOT_FOUND_ACCOUNT_OR_KEY_NOT_FOUND',
  'NOT_FOUND_API_KEY_NOT_FOUND',
  'NOT_FOUND_JOB_NOT_FOUND',
  'NOT_FOUND_NO_MASTER_API_KEY_FOUND',
  'NOT_FOUND_NOT_FOUND',
  'RATE_LIMIT_RATE_LIMIT_EXCEEDED',
  'ROUTING_INVALID_PATH_OR_METHOD',
  'INTERNAL_FAILED_CREATE_API_KEY',
  'INTERNAL_FAILED_EDIT_API_KEY',
  'INTERNAL_UNCLASSIFIED_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes of one category, e.g. `CodeOf<'VALIDATION'>`. */
export type CodeOf<K extends ErrorCategory> = Extract<ErrorCode, `${K}_${string}`>;
export type ValidationCode = CodeOf<'VALIDATION'>;
export type TitleFilterCode = Extract<ErrorCode, `VALIDATION_BAD_TITLE_FILTER${string}`>;

const SERVICE_CODE_SET: ReadonlySet<string> = new Set(ERROR_CODES);

/** True when `value` is one of the codes the interface lists. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && SERVICE_CODE_SET.has(value);
}

/** Why a webhook callback was refused or could not be verified. */
export const SIGNATURE_REASONS = [
  'SIGNATURE_MISSING',
  'SIGNATURE_MALFORMED',
  'SIGNATURE_BAD_ALG',
  'SIGNATURE_BAD_TYP',
  'SIGNATURE_UNKNOWN_KID',
  'SIGNATURE_INVALID',
  'SIGNATURE_CLAIM_MISSING',
  'SIGNATURE_EXPIRED',
  'SIGNATURE_NOT_YET_VALID',
  'SIGNATURE_LIFETIME_TOO_LONG',
  'BODY_HASH_ALG_UNSUPPORTED',
  'BODY_HASH_MISMATCH',
  'BODY_MALFORMED_JSON',
  'JOB_ID_MISMATCH',
  'KEYSET_UNAVAILABLE',
] as const;
export type SignatureReason = (typeof SIGNATURE_REASONS)[number];

/**
 * The signature reasons a retry can fix: the key set cannot be fetched, or a kid it does not hold yet
 * (a rotation in progress). An unknown kid is final once a key set fetched after its first sighting lacks it.
 */
export const TRANSIENT_SIGNATURE_REASONS = ['SIGNATURE_UNKNOWN_KID', 'KEYSET_UNAVAILABLE'] as const;
export type TransientSignatureReason = (typeof TRANSIENT_SIGNATURE_REASONS)[number];

/** The receiver's refusals that are not about the signature. */
export const REQUEST_REFUSALS = [
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'BODY_NOT_UTF8',
  'NO_FINDER',
  'FINDER_REFUSED',
  'JTI_REUSED',
] as const;
export type RequestRefusal = (typeof REQUEST_REFUSALS)[number];

/** Every reason a delivery can be refused (and kept in the quarantine with). */
export type RefusalCode = SignatureReason | RequestRefusal;

/** The codes of the receiver's answers that the sender retries (429 or 500, never 503). */
export const TRANSIENT_CODES = [
  ...TRANSIENT_SIGNATURE_REASONS,
  'STORAGE_UNAVAILABLE',
  'INTERNAL_ERROR',
  'OVERLOADED',
  'SHUTTING_DOWN',
  'BODY_BUDGET',
  'BODY_TIMEOUT',
  'BODY_ABORTED',
  'FINDER_UNAVAILABLE',
  'FINDER_PENDING',
  'UNSIGNED_FETCH_BUDGET',
] as const;
export type TransientCode = (typeof TRANSIENT_CODES)[number];

const TRANSIENT_CODE_SET: ReadonlySet<string> = new Set(TRANSIENT_CODES);

/** True when `code` is an answer the sender retries. */
export function isTransientCode(code: string): code is TransientCode {
  return TRANSIENT_CODE_SET.has(code);
}

/** The codes of the admin API's own answers, beside the service's VALIDATION codes it shares. */
export const ADMIN_CODES = [
  'UNAUTHORIZED',
  'TOO_MANY_FAILED_ATTEMPTS',
  'NOT_FOUND',
  'INTERNAL_ERROR',
] as const;
export type AdminCode = (typeof ADMIN_CODES)[number];

/** The body of an error answer of ours (receiver, admin API), shaped as the interface's error object. */
export interface ErrorAnswerBody {
  readonly status: 'error';
  readonly code: RefusalCode | TransientCode | AdminCode | ValidationCode;
  readonly message: string;
  readonly error?: string | readonly string[];
}

/** hooksync's own codes, beside the service's. */
export const HOOKSYNC_CODES = [
  'CONFIG_INVALID',
  'STORAGE_UNAVAILABLE',
  'STORAGE_FAILED',
  'TEMPLATE_INVALID',
  'TEMPLATE_NOT_FOUND',
  'NETWORK_ERROR',
  'TIMEOUT',
  'RESPONSE_MALFORMED',
  'RESPONSE_TOO_LARGE',
  'INPUT_INVALID',
  'CRM_UNAVAILABLE',
  'CRM_RATE_LIMITED',
  'CRM_UNAUTHORIZED',
  'CRM_REFUSED',
] as const;
export type HooksyncCode = (typeof HOOKSYNC_CODES)[number];

/** The CLI's codes, one per exit code of a failed command (1, 2, 130). */
export const CLI_CODES = ['CLI_FAILED', 'CLI_USAGE', 'CLI_ABORTED'] as const;
export type CliCode = (typeof CLI_CODES)[number];

/** Every code a {@link HooksyncError} can carry. */
export type AnyErrorCode = HooksyncCode | RefusalCode | TransientCode | ErrorCode | CliCode;

/** Base class of every error hooksync throws on purpose. */
export class HooksyncError extends Error {
  readonly code: AnyErrorCode;
  constructor(code: AnyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
  override get name(): string {
    return this.constructor.name;
  }
}

/** An error answer from the service (or the simulator), or a network failure talking to it. */
export class ServiceError extends HooksyncError {
  /** HTTP status; 0 when no answer came (network error or timeout). */
  readonly status: number;
  readonly category: ErrorCategory | undefined;
  /** `error` detail of the error object, if any. */
  readonly detail: string | readonly string[] | undefined;
  /** Seconds to wait before retrying, from `Retry-After` or the 429 message. */
  readonly retryAfterSeconds: number | undefined;
  constructor(init: {
    status: number;
    code: ErrorCode | 'NETWORK_ERROR' | 'TIMEOUT' | 'RESPONSE_MALFORMED' | 'RESPONSE_TOO_LARGE';
    category?: ErrorCategory | undefined;
    message: string;
    detail?: string | readonly string[] | undefined;
    retryAfterSeconds?: number | undefined;
    cause?: unknown;
  }) {
    super(init.code, init.message, { cause: init.cause });
    this.status = init.status;
    this.category = init.category;
    this.detail = init.detail;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/**
 * An answer from elsewhere (the service, a key set, a destination) that could not be read within its
 * bounds: over the size cap, past the deadline, or cut off by the network.
 */
export class ResponseReadError extends HooksyncError {
  declare readonly code: 'RESPONSE_TOO_LARGE' | 'TIMEOUT' | 'NETWORK_ERROR';
  /** The cap in force, in bytes. */
  readonly maxBytes: number;
  constructor(
    code: 'RESPONSE_TOO_LARGE' | 'TIMEOUT' | 'NETWORK_ERROR',
    message: string,
    options: { maxBytes: number; cause?: unknown },
  ) {
    super(code, message, options);
    this.maxBytes = options.maxBytes;
  }
}

/** A request refused by local validation, with the code the service would answer. */
export class ValidationError extends HooksyncError {
  declare readonly code: ValidationCode;
  /** Human-readable problems, one per rule broken (at most 10, as in the error object). */
  readonly issues: readonly string[];
  constructor(
    code: ValidationCode,
    message: string,
    issues: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.issues = issues.slice(0, 10);
  }
}

/** A webhook callback that failed verification. */
export class SignatureError extends HooksyncError {
  declare readonly code: SignatureReason;
  /** True when a retry could succeed (key set unreachable, cooldown on an unknown kid). */
  readonly transient: boolean;
  constructor(code: TransientSignatureReason, message: string, options: { cause?: unknown; transient: true });
  constructor(code: SignatureReason, message: string, options?: { cause?: unknown; transient?: false });
  constructor(code: SignatureReason, message: string, options?: { cause?: unknown; transient?: boolean }) {
    super(code, message, options);
    this.transient = options?.transient ?? false;
  }
}

/** A bad configuration value: the message names the variable or flag and what it accepts. */
export class ConfigError extends HooksyncError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG_INVALID', message, options);
  }
}

/** A database failure; `transient` when a retry could succeed (busy, connection lost). */
export class StorageError extends HooksyncError {
  readonly transient: boolean;
  constructor(message: string, options: { cause?: unknown; transient: boolean }) {
    super(options.transient ? 'STORAGE_UNAVAILABLE' : 'STORAGE_FAILED', message, options);
    this.transient = options.transient;
  }
}

/** A bad export template: names the file, the column and what is wrong. */
export class TemplateError extends HooksyncError {
  constructor(
    code: 'TEMPLATE_INVALID' | 'TEMPLATE_NOT_FOUND',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** An input file that cannot be read as rows (`hooksync launch`): names the file and the line. */
export class InputError extends HooksyncError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INPUT_INVALID', message, options);
  }
}

/**
 * What to do about a CRM call that did not succeed: `retry` on the schedule (5xx, network, a lock, a
 * malformed answer), `wait` for the CRM's window before anything is sent again (a rate limit), `pause` the
 * destination until a person resumes it (credentials, scopes), or `fail` the records at fault (never retried
 * unchanged).
 */
export type CrmTrouble =
  | { readonly kind: 'retry'; readonly error: string; readonly retryAfterMs?: number }
  | { readonly kind: 'wait'; readonly policy: string; readonly error: string; readonly waitMs: number }
  | { readonly kind: 'pause'; readonly error: string }
  | { readonly kind: 'fail'; readonly error: string };

const CRM_CODES = {
  retry: 'CRM_UNAVAILABLE',
  wait: 'CRM_RATE_LIMITED',
  pause: 'CRM_UNAUTHORIZED',
  fail: 'CRM_REFUSED',
} as const satisfies Record<CrmTrouble['kind'], HooksyncCode>;

/** A CRM call (HubSpot, Salesforce, Pipedrive) that did not succeed, with what to do about it. */
export class CrmError extends HooksyncError {
  declare readonly code: (typeof CRM_CODES)[CrmTrouble['kind']];
  /** HTTP status; null when no answer came (network error, timeout). */
  readonly status: number | null;
  readonly trouble: CrmTrouble;
  constructor(status: number | null, trouble: CrmTrouble, options?: { cause?: unknown }) {
    super(CRM_CODES[trouble.kind], trouble.error, options);
    this.status = status;
    this.trouble = trouble;
  }
}
