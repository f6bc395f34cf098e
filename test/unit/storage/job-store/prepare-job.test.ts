import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../../src/contract/json.js';
import { computeBodyHash } from '../../../../src/contract/webhook-signature.js';
import { DICTIONARY_MAX_BYTES, decodeEnvelope } from '../../../../src/storage/envelope-codec.js';
import { encodeJob, prepareJob, prepareJobForWorker } from '../../../../src/storage/job-store/prepare-job.js';
import { companyRevealText, jobChangeText, searchContactText, testUuid } from '../envelope-texts.js';

const NOW = Date.UTC(2026, 2, 4);

/** True when `bytes` covers its whole buffer: what can be transferred to another thread. */
function ownsItsBuffer(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
}

describe('prepareJob', () => {
  it('reads identity, kind, status, dates and hash from the text', () => {
    const text = jobChangeText(testUuid(1));
    const job = prepareJob({ envelopeText: text, source: 'webhook', jti: 'j' }, NOW);
    expect(job).toMatchObject({
      jobId: testUuid(1),
      kind: 'job_change',
      status: 'SUCCEEDED',
      contextId: testUuid(3, 'cccccccc'),
      startDate: '2026-03-04T10:11:12.123456-05:00',
      stopDate: '2026-03-04T10:11:13.654321+02:00',
      envelopeChars: text.length,
      payloadHash: computeBodyHash(text),
      schemaCheck: { valid: true, issues: null },
      jti: 'j',
      tokenExpiresAtMs: NOW + 900_000,
    });
    // The text travels compressed only (it is what crosses to serve's store worker).
    expect(decodeEnvelope(job.envelopeZ)).toBe(text);
    expect(job).not.toHaveProperty('envelopeText');
  });

  it('uses the parsed envelope it is given instead of parsing again, for the check and the rows', () => {
    const text = companyRevealText(testUuid(2));
    const envelope = parseJsonText(text) as { output: { company: { name: string } } };
    envelope.output.company.name = 'Parsed Once';
    const job = prepareJob({ envelopeText: text, envelope, source: 'finder' }, NOW);
    expect(job.rows?.companies.map((row) => row.name)).toEqual(['Parsed Once']);
  });

  it('compresses the bytes it is given, which decode to the text, a byte order mark included', () => {
    const text = `\uFEFF${companyRevealText(testUuid(4))}`;
    const bytes = Buffer.from(text, 'utf8');
    const job = prepareJob({ envelopeText: text, envelopeBytes: bytes, source: 'webhook' }, NOW);
    expect(job.jobId).toBe(testUuid(4));
    expect(Buffer.from(decodeEnvelope(job.envelopeZ), 'utf8').equals(bytes)).toBe(true);
    expect(job.payloadHash).toBe(computeBodyHash(bytes));
  });

  it('leaves every envelope as bytes of their own for the store worker to compress', () => {
    const small = companyRevealText(testUuid(5));
    const forWorker = prepareJobForWorker({ envelopeText: small, source: 'webhook' }, NOW);
    expect(forWorker).not.toHaveProperty('envelopeZ');
    // A buffer of its own (the text's bytes come from a shared pool), so that it can be transferred.
    expect(ownsItsBuffer(forWorker.envelopeBytes)).toBe(true);
    const encoded = encodeJob(forWorker);
    expect(encoded).not.toHaveProperty('envelopeBytes');
    expect(decodeEnvelope(encoded.envelopeZ)).toBe(small);
    expect(encoded).toEqual(prepareJob({ envelopeText: small, source: 'webhook' }, NOW));

    // A page's body in a buffer of its own is handed over as it is: no copy of half a megabyte.
    const large = searchContactText(testUuid(6), 40);
    expect(Buffer.byteLength(large)).toBeGreaterThan(DICTIONARY_MAX_BYTES);
    const body = new Uint8Array(Buffer.from(large, 'utf8'));
    const page = prepareJobForWorker({ envelopeText: large, envelopeBytes: body, source: 'webhook' }, NOW);
    expect(page.envelopeBytes.buffer).toBe(body.buffer);
    expect(decodeEnvelope(encodeJob(page).envelopeZ)).toBe(large);
    expect(encodeJob(page)).toEqual(prepareJob({ envelopeText: large, source: 'webhook' }, NOW));
  });

  it('stores a missing status as the empty string and flags the misfit', () => {
    const text = JSON.stringify({ input: { task: { ip: '1.2.3.4', job_id: testUuid(3) } } });
    const job = prepareJob({ envelopeText: text, source: 'webhook' }, NOW);
    expect(job.status).toBe('');
    expect(job.schemaCheck?.valid).toBe(false);
    expect(JSON.parse(job.schemaCheck?.issues ?? '[]').length).toBeGreaterThan(0);
  });

  it('leaves the rows out when asked (a large envelope, whose rows the store worker derives)', () => {
    const job = prepareJob({ envelopeText: jobChangeText(testUuid(9)), source: 'webhook' }, NOW, false);
    expect(job.rows).toBeUndefined();
    expect(job.schemaCheck.valid).toBe(true);
  });

  it('carries the rows its envelope gives, and is plain data (it crosses to the store worker as is)', () => {
    const job = prepareJob({ envelopeText: jobChangeText(testUuid(7)), source: 'webhook' }, NOW);
    expect(job.rows?.jobChanges).toHaveLength(1);
    expect(job.rows?.persons).toHaveLength(1);
    expect(structuredClone(job)).toEqual(job);
  });

  it('takes a payload hash it is given (a verified body_hash) instead of hashing again', () => {
    const text = companyRevealText(testUuid(8));
    const payloadHash = computeBodyHash(text);
    const job = prepareJob({ envelopeText: text, source: 'webhook', payloadHash: 'A'.repeat(43) }, NOW);
    expect(job.payloadHash).toBe('A'.repeat(43));
    expect(prepareJob({ envelopeText: text, source: 'webhook', payloadHash }, NOW).payloadHash).toBe(
      payloadHash,
    );
  });

  it('drops U+0000 from the status and dates it copies into columns', () => {
    const text = jobChangeText(testUuid(6)).replace('"status":"SUCCEEDED"', '"status":"SUCC\\u0000EEDED"');
    expect(prepareJob({ envelopeText: text, source: 'webhook' }, NOW).status).toBe('SUCCEEDED');
  });

  it('takes the token expiry it is given', () => {
    const expires = new Date(NOW + 60_000);
    const job = prepareJob(
      { envelopeText: companyRevealText(testUuid(4)), source: 'webhook', jti: 'x', tokenExpiresAt: expires },
      NOW,
    );
    expect(job.tokenExpiresAtMs).toBe(NOW + 60_000);
  });

  it.each([
    ['text that is not JSON', { envelopeText: '{"status":', source: 'webhook' }],
    [
      'an envelope without job_id',
      { envelopeText: '{"status":"SUCCEEDED","input":{"task":{}}}', source: 'webhook' },
    ],
    ['an empty job_id', { envelopeText: '{"input":{"task":{"job_id":""}}}', source: 'webhook' }],
    [
      'a job_id holding U+0000',
      { envelopeText: '{"input":{"task":{"job_id":"a\\u0000b"}}}', source: 'webhook' },
    ],
    ['an unknown source', { envelopeText: companyRevealText(testUuid(5)), source: 'email' }],
    ['an empty jti', { envelopeText: companyRevealText(testUuid(5)), source: 'webhook', jti: '' }],
    [
      'a payload hash that is not a base64url SHA-256',
      { envelopeText: companyRevealText(testUuid(5)), source: 'webhook', payloadHash: 'abc=' },
    ],
    [
      'an invalid expiry',
      {
        envelopeText: companyRevealText(testUuid(5)),
        source: 'webhook',
        tokenExpiresAt: new Date(Number.NaN),
      },
    ],
  ])('refuses %s with a TypeError', (_, input) => {
    expect(() => prepareJob(input as never, NOW)).toThrow(TypeError);
  });
});
