import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jwksSchema } from '../../../src/contract/jwk.js';
import { ConfigError } from '../../../src/errors.js';
import { SigningKeyRing } from '../../../src/simulator/signing-key-ring.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-keyring-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SigningKeyRing', () => {
  it('publishes the signer first and a retired key until its grace period ends', () => {
    let clockMs = 1_000;
    const ring = new SigningKeyRing({ graceMs: 500, now: () => clockMs });
    const first = ring.current.kid;
    expect(jwksSchema.safeParse(ring.jwks()).success).toBe(true);
    const { kid, previousKid } = ring.rotate();
    expect(previousKid).toBe(first);
    expect(ring.current.kid).toBe(kid);
    clockMs += 499;
    expect(ring.jwks().keys.map((k) => k.kid)).toEqual([kid, first]);
    const second = ring.rotate().kid;
    expect(ring.jwks().keys.map((k) => k.kid)).toEqual([second, kid, first]);
    clockMs += 1;
    expect(ring.jwks().keys.map((k) => k.kid)).toEqual([second, kid]);
    expect(JSON.stringify(ring.jwks())).not.toContain('"d"');
  });

  it('writes a missing key file (owner-only) and reads it back, newest first', () => {
    const file = join(dir, 'keys.json');
    const ring = new SigningKeyRing({ graceMs: 1000, now: () => 0, file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = new SigningKeyRing({ graceMs: 1000, now: () => 0, file });
    expect(again.current.kid).toBe(ring.current.kid);
    const { kid } = again.rotate();
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { keys: { kid: string }[] };
    expect(stored.keys.map((k) => k.kid)).toEqual([kid, ring.current.kid]);
  });

  it('refuses an unusable key file with a ConfigError naming it', () => {
    const file = join(dir, 'bad.json');
    for (const text of [
      'not json',
      '{"keys": []}',
      '{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "abc"}]}',
    ]) {
      writeFileSync(file, text);
      expect(() => new SigningKeyRing({ graceMs: 0, now: () => 0, file })).toThrow(ConfigError);
      expect(() => new SigningKeyRing({ graceMs: 0, now: () => 0, file })).toThrow(file);
    }
  });
});
