/**
 * Every error code the service interface lists (Errors part), with its category and, where the
 * interface documents one, the HTTP status it goes with. This is the one copy of that table.
 */

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

/** The pattern the interface gives for a code: `CATEGORY_DETAIL`. */
export const ERROR_CODE_PATTERN =
  /^(AUTH|PERMISSION|QUOTA|VALIDATION|NOT_FOUND|RATE_LIMIT|ROUTING|INTERNAL)_[A-Z0-9_]+$/;

const CODE_SET: ReadonlySet<string> = new Set(ERROR_CODES);

/** True when `value` is one of the codes the interface lists. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/**
 * The category of a code, derived from its prefix (`NOT_FOUND` and `RATE_LIMIT` hold an underscore,
 * so the longest matching category wins). Undefined for a string that fits no category.
 */
export function categoryOf(code: string): ErrorCategory | undefined {
  let best: ErrorCategory | undefined;
  for (const category of ERROR_CATEGORIES) {
    if (code.startsWith(`${category}_`) && (best === undefined || category.length > best.length)) {
      best = category;
    }
  }
  return best;
}

/**
 * The HTTP status each documented code goes with (the interface's status table). Categories the table
 * covers as a whole (VALIDATION → 400, INTERNAL → 500, NOT_FOUND → 404) give every member that status;
 * AUTH_NEED_MASTER_API_KEY and the PERMISSION codes are undocumented and take 403 (a key without the
 * right), which is the simulator's choice.
 */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'AUTH_MISSING_API_KEY':
      return 401;
    case 'AUTH_BAD_API_KEY':
    case 'AUTH_NEED_MASTER_API_KEY':
      return 403;
    case 'QUOTA_ACCOUNT_OVER_QUOTA':
      return 402;
    case 'RATE_LIMIT_RATE_LIMIT_EXCEEDED':
      return 429;
    case 'ROUTING_INVALID_PATH_OR_METHOD':
      return 404;
  }
  const category = categoryOf(code);
  switch (category) {
    case 'VALIDATION':
      return 400;
    case 'NOT_FOUND':
      return 404;
    case 'PERMISSION':
      return 403;
    case 'INTERNAL':
      return 500;
    default:
      return 500;
  }
}

/**
 * Whether an error answer can succeed when retried: the statuses on which the service itself retries
 * webhook deliveries (429, 500, 502, 504), plus 503 for a client calling the service.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}
