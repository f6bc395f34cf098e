/**
 * The session cookie: names a server-side session and proves the server made it for a holder of the token,
 * without holding the token; expires; dies with the token. The one constant-time comparison of secrets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAuthorizedBearer, isSameSecret } from '../../../../src/server/admin-access/is-same-secret.js';
import {
  createSessionValue,
  newSessionId,
  parseSessionValue,
  readCookie,
  SESSION_COOKIE_NAME,
  serializeSessionCookie,
} from '../../../../src/server/status-page/session-cookie.js';

const TOKEN = 'status-admin-token-0123456789abcdef';
const NOW = Date.UTC(2026, 10, 22, 21, 0, 0);
const ID = newSessionId();

describe('session value', () => {
  it('names its session before its expiry and nothing at or after it', () => {
    const value = createSessionValue(TOKEN, ID, NOW + 60_000);
    expect(parseSessionValue(value, TOKEN, NOW)).toEqual({ sessionId: ID, expiresAtMs: NOW + 60_000 });
    expect(parseSessionValue(value, TOKEN, NOW + 59_999)?.sessionId).toBe(ID);
    expect(parseSessionValue(value, TOKEN, NOW + 60_000)).toBeUndefined();
  });

  it('is refused under another token (a rotated token ends every session)', () => {
    const value = createSessionValue(TOKEN, ID, NOW + 60_000);
    expect(parseSessionValue(value, `${TOKEN}x`, NOW)).toBeUndefined();
    expect(parseSessionValue(value, '', NOW)).toBeUndefined();
  });

  it('gives every session a different random id', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newSessionId()));
    expect(ids.size).toBe(1000);
  });

  it('never contains the token, nor any long piece of it', () => {
    const value = createSessionValue(TOKEN, ID, NOW + 60_000);
    for (let i = 0; i + 8 <= TOKEN.length; i++) expect(value).not.toContain(TOKEN.slice(i, i + 8));
  });

  it('refuses a value whose expiry was pushed forward or whose session id was swapped (the HMAC covers both)', () => {
    const value = createSessionValue(TOKEN, ID, NOW + 60_000);
    const [version, id, expiry, mac] = value.split('.');
    expect(
      parseSessionValue(`${version}.${id}.${Number(expiry) + 86_400}.${mac}`, TOKEN, NOW),
    ).toBeUndefined();
    expect(parseSessionValue(`${version}.${newSessionId()}.${expiry}.${mac}`, TOKEN, NOW)).toBeUndefined();
  });

  it('refuses every one-character change of a valid value', () => {
    const value = createSessionValue(TOKEN, ID, NOW + 3_600_000);
    fc.assert(
      fc.property(fc.nat(value.length - 1), fc.constantFrom(...'0123456789abcdefABCDEF-_.x'), (at, c) => {
        fc.pre(value[at] !== c);
        const mutated = value.slice(0, at) + c + value.slice(at + 1);
        expect(parseSessionValue(mutated, TOKEN, NOW)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('refuses garbage, empty and missing values, and the old v1 format', () => {
    const v1 = `v1.${Math.floor(NOW / 1000) + 60}.${'A'.repeat(43)}`;
    for (const value of [undefined, '', 'v2', 'v2...', TOKEN, v1]) {
      expect(parseSessionValue(value, TOKEN, NOW)).toBeUndefined();
    }
  });

  it('needs a token, an id from newSessionId and a finite expiry', () => {
    expect(() => createSessionValue('', ID, NOW)).toThrow(TypeError);
    expect(() => createSessionValue(TOKEN, 'short', NOW)).toThrow(TypeError);
    expect(() => createSessionValue(TOKEN, ID, Number.NaN)).toThrow(TypeError);
  });
});

describe('isSameSecret and isAuthorizedBearer', () => {
  it('is true only for the identical string', () => {
    expect(isSameSecret(TOKEN, TOKEN)).toBe(true);
    expect(isSameSecret(TOKEN.slice(0, -1), TOKEN)).toBe(false);
    expect(isSameSecret(`${TOKEN} `, TOKEN)).toBe(false);
    expect(isSameSecret('', TOKEN)).toBe(false);
  });

  it('accepts exactly `Bearer <token>`', () => {
    expect(isAuthorizedBearer(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(isAuthorizedBearer(`bearer   ${TOKEN}`, TOKEN)).toBe(true);
    for (const header of [undefined, '', TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, `Bearer ${TOKEN} x`]) {
      expect(isAuthorizedBearer(header, TOKEN)).toBe(false);
    }
  });
});

describe('cookies', () => {
  it('reads a cookie among others, with or without quotes', () => {
    expect(readCookie(`a=1; ${SESSION_COOKIE_NAME}=v2.2.abc; b=2`, SESSION_COOKIE_NAME)).toBe('v2.2.abc');
    expect(readCookie(`${SESSION_COOKIE_NAME}="quoted"`, SESSION_COOKIE_NAME)).toBe('quoted');
    expect(readCookie(`x${SESSION_COOKIE_NAME}=no`, SESSION_COOKIE_NAME)).toBeUndefined();
    expect(readCookie(undefined, SESSION_COOKIE_NAME)).toBeUndefined();
  });

  it('serializes HttpOnly and SameSite=Strict, Secure only when asked, and refuses header injection', () => {
    const plain = serializeSessionCookie('v2.1.abc', { path: '/ui', maxAgeSeconds: 60, secure: false });
    expect(plain).toBe(`${SESSION_COOKIE_NAME}=v2.1.abc; Path=/ui; Max-Age=60; HttpOnly; SameSite=Strict`);
    expect(serializeSessionCookie('v', { path: '/ui', maxAgeSeconds: 0, secure: true })).toMatch(/; Secure$/);
    expect(() => serializeSessionCookie('a;b', { path: '/ui', maxAgeSeconds: 1, secure: false })).toThrow(
      TypeError,
    );
    expect(() =>
      serializeSessionCookie('a', { path: '/ui; Domain=evil', maxAgeSeconds: 1, secure: false }),
    ).toThrow(TypeError);
  });
});
