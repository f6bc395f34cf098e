/**
 * The keys HubSpot records are upserted by, normalized so that one company or person is one key whatever
 * way the service spelled it: companies by their domain, contacts by e-mail or LinkedIn profile URL.
 * Each returns undefined when the value cannot be a key (a record is then skipped, never created blind).
 */

/** A syntax check of the kind HubSpot applies (one @, a dotted domain, no spaces). */
const EMAIL = /^[^\s@"<>(),;:]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/** `ACME.com`, `https://www.acme.com/about`, `acme.com.` → `acme.com`. */
export function normalizeDomain(value: string | undefined): string | undefined {
  const text = value?.trim().toLowerCase();
  if (text === undefined || text === '') return undefined;
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//.test(text) ? text : `http://${text}`).hostname;
  } catch {
    return undefined;
  }
  host = host.replace(/\.$/, '').replace(/^www\d*\./, '');
  // A bare word or an IP address is no company's domain.
  if (!host.includes('.') || /^[\d.]+$/.test(host) || host.startsWith('[')) return undefined;
  return host;
}

/** Trims and lower-cases an e-mail address; undefined when it is not one. */
export function normalizeEmail(value: string | undefined): string | undefined {
  const text = value?.trim().toLowerCase();
  return text !== undefined && EMAIL.test(text) ? text : undefined;
}

/** Whether `value` is an e-mail address HubSpot would take. */
export function isEmail(value: string): boolean {
  return EMAIL.test(value.trim().toLowerCase());
}

/**
 * A LinkedIn profile URL in one form: `https://www.linkedin.com/in/<slug>` (slug lower-cased and decoded,
 * country subdomains, query, fragment and trailing slash dropped). Other LinkedIn paths keep their path.
 */
export function normalizeLinkedinUrl(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase();
  if (host !== 'linkedin.com' && !host.endsWith('.linkedin.com')) return undefined;
  const parts = url.pathname
    .split('/')
    .filter((part) => part !== '')
    .map((part) => {
      try {
        return decodeURIComponent(part).toLowerCase();
      } catch {
        return part.toLowerCase();
      }
    });
  if (parts.length < 2) return undefined;
  const path = parts[0] === 'in' || parts[0] === 'pub' ? parts.slice(0, 2) : parts;
  return `https://www.linkedin.com/${path.map(encodeURIComponent).join('/')}`;
}

/** A person id from the service (a UUID or an opaque id): trimmed and lower-cased; undefined when empty. */
export function normalizePersonId(value: string | undefined): string | undefined {
  const text = value?.trim().toLowerCase();
  return text === undefined || text === '' ? undefined : text;
}

/** A name compared as people type it: accents dropped, case folded, spaces collapsed (`Müller ` → `muller`). */
export function normalizeName(value: string | undefined): string {
  return (value ?? '').normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The `fullName` search value of a person: `first\tlast`, undefined without both. */
export function fullNameOf(first: string | undefined, last: string | undefined): string | undefined {
  const [a, b] = [first?.trim() ?? '', last?.trim() ?? ''];
  return a === '' || b === '' ? undefined : `${a}\t${b}`;
}

/** Whether `email` is an address at `domain` or one of its subdomains. */
export function isEmailAt(email: string | undefined, domain: string): boolean {
  const host = email?.split('@')[1]?.trim().toLowerCase();
  return host !== undefined && (host === domain || host.endsWith(`.${domain}`));
}
