/**
 * The interface's numeric limits (Limits part), in one place.
 */

/** Default account rate on the Search and Job Change APIs: 50 requests per 60 seconds. */
export const DEFAULT_RATE_LIMIT = Object.freeze({ perInterval: 50, intervalSeconds: 60 });

/** A webhook signature expires exactly 15 minutes after iat. */
export const SIGNATURE_LIFETIME_SECONDS = 900;
/**
 * Clock skew allowed on a webhook token's iat and exp, in seconds; also how long after its exp a token's jti
 * is kept as a replay guard.
 */
export const DEFAULT_TOLERANCE_SECONDS = 60;
/** The service retries a callback up to 5 times... */
export const WEBHOOK_MAX_RETRIES = 5;
/** ...when the receiver answers one of these statuses, and never on any other. */
export const WEBHOOK_RETRY_STATUSES: readonly number[] = Object.freeze([429, 500, 502, 504]);
/** Company Reveal's webhook_url. */
export const WEBHOOK_URL_MAX_LENGTH = 2083;

export const CUSTOM_FIELDS_MAX_PROPERTIES = 100;
export const CUSTOM_FIELDS_MAX_STRING_LENGTH = 1000;
export const CUSTOM_FIELDS_KEY_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Search Contact request limits. */
export const SEARCH_LIMITS = Object.freeze({
  titleFiltersMax: 5,
  titleListsMax: 5,
  excludedNamesMax: 200,
  includedNamesMax: 100,
  fullNameMin: 4,
  fullNameMax: 250,
  countriesMax: 50,
  countryMin: 1,
  countryMax: 200,
  industriesMax: 50,
  industryMin: 5,
  industryMax: 57,
  employeeRangesMax: 8,
  domainMin: 4,
  domainMax: 500,
  companyNameMin: 3,
  companyNameMax: 500,
  linkedinMin: 3,
  linkedinMax: 500,
  pageNumberMin: 1,
  pageNumberMax: 100,
  pageNumberDefault: 1,
  pageSizeMin: 1,
  pageSizeMax: 250,
  pageSizeDefault: 10,
});

/** Error detail: at most 10 items of at most 1000 characters. */
export const ERROR_DETAIL_MAX_ITEMS = 10;
export const ERROR_DETAIL_MAX_LENGTH = 1000;
