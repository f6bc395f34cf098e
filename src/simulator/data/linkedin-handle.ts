/**
 * LinkedIn values as requests give them: a profile or company URL, or a bare id/handle (interface,
 * Search Contact request: "contact LinkedIn URL or id", "company LinkedIn URL or id/handle").
 */

const LINKEDIN_PATH =
  /^(?:https?:\/\/)?(?:[a-z0-9-]+\.)*linkedin\.com\/(?:in|pub|company|school|showcase)\/([^/?#]+)/i;

/** The URL of a person's profile for a handle. */
export function personLinkedinUrl(handle: string): string {
  return `https://www.linkedin.com/in/${encodeURIComponent(handle)}`;
}

/** The URL of a company page for a handle or numeric id. */
export function companyLinkedinUrl(handle: string): string {
  return `https://www.linkedin.com/company/${encodeURIComponent(handle)}`;
}

/**
 * The handle (or id) a LinkedIn value names, lower-cased for lookups: the path segment after /in/ or
 * /company/ of a URL, else the value itself without surrounding slashes and spaces. Empty when nothing is left.
 */
export function parseLinkedinHandle(value: string): string {
  const trimmed = value.trim();
  const match = LINKEDIN_PATH.exec(trimmed);
  let handle = match?.[1] ?? trimmed.replace(/^\/+|\/+$/g, '');
  try {
    handle = decodeURIComponent(handle);
  } catch {
    // A stray "%" is part of the handle as written; keep it.
  }
  return handle.trim().toLowerCase();
}
