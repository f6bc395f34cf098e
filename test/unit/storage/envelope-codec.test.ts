/** The stored form of envelopes: exact text back, the codec by size, damage refused, the dictionary frozen. */
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import {
  DICTIONARY_MAX_BYTES,
  decodeBytes,
  decodeBytesPrefix,
  decodeEnvelope,
  encodeBytes,
  encodeEnvelope,
} from '../../../src/storage/envelope-codec.js';
import {
  ENVELOPE_DICTIONARY_SHA256,
  ENVELOPE_DICTIONARY_TEXT,
} from '../../../src/storage/envelope-dictionary.js';
import { companyRevealText, searchContactText, testUuid } from './envelope-texts.js';

describe('encodeEnvelope / decodeEnvelope', () => {
  it('gives back every text exactly, whatever its characters and size', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 2000 }), (text) => {
        expect(decodeEnvelope(encodeEnvelope(text))).toBe(text);
      }),
    );
    for (const size of [0, 1, DICTIONARY_MAX_BYTES - 1, DICTIONARY_MAX_BYTES, DICTIONARY_MAX_BYTES + 1]) {
      const text = 'é'.repeat(Math.floor(size / 2)) + 'x'.repeat(size % 2);
      expect(decodeEnvelope(encodeEnvelope(text))).toBe(text);
    }
  });

  it('deflates small envelopes with the dictionary and brotli-compresses large ones, each smaller', () => {
    const reveal = companyRevealText(testUuid(1));
    const page = searchContactText(testUuid(2), 200);
    expect(Buffer.byteLength(page)).toBeGreaterThan(DICTIONARY_MAX_BYTES);
    const small = encodeEnvelope(reveal);
    const large = encodeEnvelope(page);
    expect([small[0], large[0]]).toEqual([2, 1]);
    expect(small.length).toBeLessThan(Buffer.byteLength(reveal) / 2);
    expect(large.length).toBeLessThan(Buffer.byteLength(page) / 4);
    expect(decodeEnvelope(new Uint8Array(large))).toBe(page);
  });

  it("deflates a company reveal against the dictionary's last example, a reveal: as small, read back the same", () => {
    const dictionary = Buffer.from(ENVELOPE_DICTIONARY_TEXT, 'utf8');
    const tail = dictionary.subarray(dictionary.lastIndexOf('{"status":'));
    expect(tail.toString('utf8')).toContain('"webhook_url"');
    for (const id of [1, 2, 3]) {
      const bytes = Buffer.from(companyRevealText(testUuid(id)), 'utf8');
      const asReveal = encodeBytes(bytes, 'company_reveal');
      expect(asReveal[0]).toBe(2);
      expect(asReveal.subarray(1)).toEqual(
        deflateRawSync(bytes, { level: 3, windowBits: 13, memLevel: 4, dictionary: tail }),
      );
      expect(decodeBytes(asReveal)).toEqual(bytes);
      expect(asReveal.length).toBeLessThanOrEqual(encodeBytes(bytes).length + 4);
    }
    // Any other kind (and a body of unknown kind) uses the whole dictionary, as before.
    const bytes = Buffer.from(companyRevealText(testUuid(4)), 'utf8');
    expect(encodeBytes(bytes, 'job_change')).toEqual(encodeBytes(bytes));
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (body) => {
        expect(decodeBytes(encodeBytes(body, 'company_reveal'))).toEqual(Buffer.from(body));
      }),
    );
  });

  it('refuses bytes that are not a stored envelope with a StorageError', () => {
    const stored = encodeEnvelope('{"a":1}');
    for (const bad of [Buffer.from([9, 1, 2]), Buffer.alloc(0), Buffer.concat([stored.subarray(0, 3)])]) {
      expect(() => decodeEnvelope(bad)).toThrow(StorageError);
    }
  });

  it('reads envelopes deflated with the dictionary under any window and level (stored by earlier builds)', () => {
    const dictionary = Buffer.from(ENVELOPE_DICTIONARY_TEXT, 'utf8');
    const text = companyRevealText(testUuid(3)) + '🙂'.repeat(3000);
    for (const [level, windowBits] of [
      [6, 15],
      [3, 14],
      [3, 13],
      [1, 9],
    ] as const) {
      const body = deflateRawSync(Buffer.from(text, 'utf8'), { level, windowBits, dictionary });
      expect(decodeEnvelope(Buffer.concat([Buffer.from([2]), body]))).toBe(text);
    }
  });

  it('keeps the dictionary stored envelopes depend on', () => {
    const hash = createHash('sha256').update(ENVELOPE_DICTIONARY_TEXT, 'utf8').digest('hex');
    expect(hash).toBe(ENVELOPE_DICTIONARY_SHA256);
  });
});

describe('encodeBytes / decodeBytes / decodeBytesPrefix (quarantined bodies)', () => {
  const bodies = fc.oneof(
    fc.uint8Array({ maxLength: 2000 }),
    // Past the dictionary threshold, brotli; repeated so that it compresses.
    fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((chunk) => Buffer.concat(Array.from({ length: Math.ceil(20_000 / chunk.length) }, () => chunk))),
  );

  it('gives back arbitrary bytes (not UTF-8) exactly, and any prefix of them', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, fc.nat({ max: 30_000 }), async (body, cut) => {
        const stored = encodeBytes(body);
        expect(decodeBytes(stored).equals(Buffer.from(body))).toBe(true);
        const prefix = await decodeBytesPrefix(stored, cut);
        expect(prefix.equals(Buffer.from(body).subarray(0, cut))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a damaged value with a StorageError, in whole or prefix', async () => {
    const stored = encodeBytes(Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    stored[0] = 9;
    expect(() => decodeBytes(stored)).toThrow(StorageError);
    await expect(decodeBytesPrefix(stored, 10)).rejects.toThrow(StorageError);
  });
});
