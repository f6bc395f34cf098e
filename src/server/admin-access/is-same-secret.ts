/**
 * The one constant-time comparison of a presented secret (bearer token, sign-in form, session MAC) with
 * the expected one. Every check of the admin token goes through here.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

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

/** True when `header` is `Bearer <token>`, compared with {@link isSameSecret}. */
export function isAuthorizedBearer(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  const same = isSameSecret(match?.[1] ?? '', token);
  return same && match !== null;
}

/** True when `header` carries a bearer credential at all (right or wrong): a wrong one is a failed attempt. */
export function hasBearer(header: string | undefined): boolean {
  return header !== undefined && /^Bearer\b/i.test(header.trim());
}
