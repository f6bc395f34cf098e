/**
 * The interface's rules about its error codes (Errors part): the pattern, the category a code's prefix
 * names and, where the interface documents one, the HTTP status it goes with. The codes themselves are
 * listed once, in errors.ts.
 */
import { ERROR_CATEGORIES, type ErrorCategory, type ErrorCode } from '../errors.js';

/** The pattern the interface gives for a code: `CATEGORY_DETAIL`. */
export const ERROR_CODE_PATTERN =
  /^(AUTH|PERMISSION|QUOTA|VALIDATION|NOT_FOUND|RATE_LIMIT|ROUTING|INTERNAL)_[A-Z0-9_]+$/;

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
