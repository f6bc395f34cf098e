/**
 * The status page's session cookie: `v1.<expiry epoch seconds>.<HMAC-SHA256 keyed by the admin token>`.
 * It proves that its holder knew the token without carrying it; it stops working when it expires or when
 * the token changes, and every replica holding the same token accepts it (no server-side session store).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Name of the cookie. */
export const SESSION_COOKIE_NAME = 'hooksync_ui_session';
/** How long a login lasts: 12 hours. */
export const DEFAULT_SESSION_SECONDS = 12 * 60 * 60;

const VERSION = 'v1';
const LABEL = 'hooksync status page session';

function sign(token: string, expiresAtSeconds: number): string {
  return createHmac('sha256', token).update(`${LABEL}|${VERSION}|${expiresAtSeconds}`).digest('base64url');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * True when two secrets are equal. Both are hashed first, so the comparison takes the same time whatever
 * the length or content of the guess.
 */
export function isSameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The cookie value for a session that ends at `expiresAtMs` (epoch ms, rounded down to a second). */
export function createSessionValue(token: string, expiresAtMs: number): string {
  if (token === '') throw new TypeError('createSessionValue needs a non-empty token');
  if (!Number.isFinite(expiresAtMs)) throw new TypeError('expiresAtMs must be a finite number');
  const expiresAtSeconds = Math.floor(expiresAtMs / 1000);
  return `${VERSION}.${expiresAtSeconds}.${sign(token, expiresAtSeconds)}`;
}

/** True when `value` is a session cookie made with `token` that has not expired at `nowMs`. */
export function isValidSessionValue(value: string | undefined, token: string, nowMs: number): boolean {
  if (value === undefined || token === '') return false;
  const match = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (match === null) return false;
  const expiresAtSeconds = Number(match[1]);
  const same = isSameSecret(match[2] ?? '', sign(token, expiresAtSeconds));
  return same && expiresAtSeconds * 1000 > nowMs;
}

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    return raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw;
  }
  return undefined;
}

/** Attributes of the Set-Cookie header of {@link serializeSessionCookie}. */
export interface SessionCookieOptions {
  /** Path the cookie is sent to (the status page's own path). */
  path: string;
  /** Lifetime in seconds; 0 deletes the cookie. */
  maxAgeSeconds: number;
  /** Adds `Secure` (the page was reached over HTTPS). */
  secure: boolean;
}

/** A Set-Cookie header value: HttpOnly (no script reads it) and SameSite=Strict (no cross-site sends). */
export function serializeSessionCookie(value: string, options: SessionCookieOptions): string {
  if (!/^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/.test(value))
    throw new TypeError('cookie value has characters a cookie cannot hold');
  if (!/^\/[\x21-\x3A\x3C-\x7E]*$/.test(options.path))
    throw new TypeError('cookie path must start with / and hold no ; or space');
  const parts = [
    `${SESSION_COOKIE_NAME}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Strict',
  ];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
