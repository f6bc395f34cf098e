/**
 * The status page's session cookie: `v2.<session id>.<expiry epoch seconds>.<HMAC-SHA256 keyed by the admin
 * token>`. It proves that the server made it for a holder of the token, without carrying the token; the
 * session itself lives server-side (ui-sessions.ts), so signing out ends it on every replica. It also stops
 * working when it expires or when the token changes.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { isSameSecret } from '../admin-access/is-same-secret.js';

/** Name of the cookie. */
export const SESSION_COOKIE_NAME = 'hooksync_ui_session';
/** How long a sign-in lasts unless configured (HOOKSYNC_UI_SESSION_MINUTES): 2 hours. */
export const DEFAULT_SESSION_SECONDS = 2 * 60 * 60;

const VERSION = 'v2';
const LABEL = 'hooksync status page session';
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

function sign(token: string, sessionId: string, expiresAtSeconds: number): string {
  return createHmac('sha256', token)
    .update(`${LABEL}|${VERSION}|${sessionId}|${expiresAtSeconds}`)
    .digest('base64url');
}

/** A new random session id (128 bits, base64url). */
export function newSessionId(): string {
  return randomBytes(16).toString('base64url');
}

/** The cookie value for session `sessionId`, ending at `expiresAtMs` (epoch ms, rounded down to a second). */
export function createSessionValue(token: string, sessionId: string, expiresAtMs: number): string {
  if (token === '') throw new TypeError('createSessionValue needs a non-empty token');
  if (!SESSION_ID.test(sessionId)) throw new TypeError('sessionId must come from newSessionId()');
  if (!Number.isFinite(expiresAtMs)) throw new TypeError('expiresAtMs must be a finite number');
  const expiresAtSeconds = Math.floor(expiresAtMs / 1000);
  return `${VERSION}.${sessionId}.${expiresAtSeconds}.${sign(token, sessionId, expiresAtSeconds)}`;
}

/**
 * The session a cookie value names, when it was made with `token` and has not expired at `nowMs`; else
 * undefined. The caller still checks that the session exists server-side.
 */
export function parseSessionValue(
  value: string | undefined,
  token: string,
  nowMs: number,
): { readonly sessionId: string; readonly expiresAtMs: number } | undefined {
  if (value === undefined || token === '') return undefined;
  const match = /^v2\.([A-Za-z0-9_-]{22})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (match === null) return undefined;
  const sessionId = match[1] ?? '';
  const expiresAtSeconds = Number(match[2]);
  const same = isSameSecret(match[3] ?? '', sign(token, sessionId, expiresAtSeconds));
  if (!same || expiresAtSeconds * 1000 <= nowMs) return undefined;
  return { sessionId, expiresAtMs: expiresAtSeconds * 1000 };
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
