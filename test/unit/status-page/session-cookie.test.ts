/**
 * The session cookie: proves knowledge of the token without holding it, expires, dies with the token.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createSessionValue,
  isSameSecret,
  isValidSessionValue,
  readCookie,
  SESSION_COOKIE_NAME,
  serializeSessionCookie,
} from '../../../src/receiver/status-page/session-cookie.js';

const TOKEN = 'status-admin-token-0123456789abcdef';
const NOW = Date.UTC(2026, 10, 22, 21, 0, 0);

describe('session value', () => {
  it('is valid before its expiry and not at or after it', () => {
    const value = createSessionValue(TOKEN, NOW + 60_000);
    expect(isValidSessionValue(value, TOKEN, NOW)).toBe(true);
    expect(isValidSessionValue(value, TOKEN, NOW + 59_999)).toBe(true);
    expect(isValidSessionValue(value, TOKEN, NOW + 60_000)).toBe(false);
  });

  it('is refused under another token (a rotated token ends every session)', () => {
    const value = createSessionValue(TOKEN, NOW + 60_000);
    expect(isValidSessionValue(value, `${TOKEN}x`, NOW)).toBe(false);
    expect(isValidSessionValue(value, '', NOW)).toBe(false);
  });

  it('never contains the token, nor any long piece of it', () => {
    const value = createSessionValue(TOKEN, NOW + 60_000);
    for (let i = 0; i + 8 <= TOKEN.length; i++) expect(value).not.toContain(TOKEN.slice(i, i + 8));
  });

  it('refuses a value whose expiry was pushed forward (the HMAC covers it)', () => {
    const value = createSessionValue(TOKEN, NOW + 60_000);
    const [version, expiry, mac] = value.split('.');
    const forged = `${version}.${Number(expiry) + 86_400}.${mac}`;
    expect(isValidSessionValue(forged, TOKEN, NOW)).toBe(false);
  });

  it('refuses every one-character change of a valid value', () => {
    const value = createSessionValue(TOKEN, NOW + 3_600_000);
    fc.assert(
      fc.property(fc.nat(value.length - 1), fc.constantFrom(...'0123456789abcdefABCDEF-_.x'), (at, c) => {
        fc.pre(value[at] !== c);
        const mutated = value.slice(0, at) + c + value.slice(at + 1);
        expect(isValidSessionValue(mutated, TOKEN, NOW)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses garbage, empty and missing values', () => {
    for (const value of [undefined, '', 'v1', 'v1..', TOKEN, `v2.${Math.floor(NOW / 1000) + 60}.AAAA`]) {
      expect(isValidSessionValue(value, TOKEN, NOW)).toBe(false);
    }
  });

  it('needs a token and a finite expiry', () => {
    expect(() => createSessionValue('', NOW)).toThrow(TypeError);
    expect(() => createSessionValue(TOKEN, Number.NaN)).toThrow(TypeError);
  });
});

describe('isSameSecret', () => {
  it('is true only for the identical string', () => {
    expect(isSameSecret(TOKEN, TOKEN)).toBe(true);
    expect(isSameSecret(TOKEN.slice(0, -1), TOKEN)).toBe(false);
    expect(isSameSecret(`${TOKEN} `, TOKEN)).toBe(false);
    expect(isSameSecret('', TOKEN)).toBe(false);
  });
});

describe('cookies', () => {
  it('reads a cookie among others, with or without quotes', () => {
    expect(readCookie(`a=1; ${SESSION_COOKIE_NAME}=v1.2.abc; b=2`, SESSION_COOKIE_NAME)).toBe('v1.2.abc');
    expect(readCookie(`${SESSION_COOKIE_NAME}="quoted"`, SESSION_COOKIE_NAME)).toBe('quoted');
    expect(readCookie(`x${SESSION_COOKIE_NAME}=no`, SESSION_COOKIE_NAME)).toBeUndefined();
    expect(readCookie(undefined, SESSION_COOKIE_NAME)).toBeUndefined();
  });

  it('serializes HttpOnly and SameSite=Strict, Secure only when asked, and refuses header injection', () => {
    const plain = serializeSessionCookie('v1.1.abc', { path: '/ui', maxAgeSeconds: 60, secure: false });
    expect(plain).toBe(`${SESSION_COOKIE_NAME}=v1.1.abc; Path=/ui; Max-Age=60; HttpOnly; SameSite=Strict`);
    expect(serializeSessionCookie('v', { path: '/ui', maxAgeSeconds: 0, secure: true })).toMatch(/; Secure$/);
    expect(() => serializeSessionCookie('a;b', { path: '/ui', maxAgeSeconds: 1, secure: false })).toThrow(
      TypeError,
    );
    expect(() =>
      serializeSessionCookie('a', { path: '/ui; Domain=evil', maxAgeSeconds: 1, secure: false }),
    ).toThrow(TypeError);
  });
});
