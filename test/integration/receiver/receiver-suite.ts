/**
 * The receiver's behaviour through its HTTP surface, run on SQLite and on Postgres by the two test files
 * beside this one.
 */
import { randomUUID } from 'node:crypto';
import { base64url, exportJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeBodyHash } from '../../../src/contract/webhook-signature.js';
import { getJob } from '../../../src/storage/job-queries.js';
import { DEFAULT_DEFER_ABOVE_CHARS } from '../../../src/storage/job-store/job-store.js';
import { listQuarantine } from '../../../src/storage/quarantine/list-quarantine.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import {
  type Dialect,
  deliver,
  NOW_MS,
  NOW_S,
  type ReceiverHarness,
  startHarness,
} from '../../helpers/receiver-harness.js';
import { createSigningKey, signDelivery } from '../../helpers/webhook-signer.js';
import { searchContactText } from '../../unit/storage/envelope-texts.js';

/** Persons on a page large enough for its rows to be written by the store's normalizer, after the 2xx. */
const LARGE_PAGE_PERSONS = 40;

function largeSearchPage(): { text: string; jobId: string } {
  const jobId = randomUUID();
  const text = searchContactText(jobId, LARGE_PAGE_PERSONS);
  if (text.length <= DEFAULT_DEFER_ABOVE_CHARS)
    throw new Error('the page must be large enough to be deferred');
  return { text, jobId };
}

export function receiverSuite(dialect: Dialect): void {
  let h: ReceiverHarness;
  beforeAll(async () => {
    h = await startHarness(dialect);
  });
  afterAll(async () => {
    await h?.close();
  });

  const db = () => h.running.database.db;
  const sign = (body: string, jobId: string, extra: Partial<Parameters<typeof signDelivery>[1]> = {}) =>
    signDelivery(body, { key: h.key, iat: NOW_S, jobId, ...extra });

  it('stores a verified delivery once, byte for byte, and answers 200 after the commit', async () => {
    const { text, jobId } = envelopeText('company-reveal');
    const answer = await deliver(h.url, text, await sign(text, jobId));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ job_id: jobId, kind: 'company_reveal', duplicate: false });
    const row = await getJob(db(), jobId);
    expect(row?.envelope).toBe(text);
    expect(row?.source).toBe('webhook');
    expect(row?.status).toBe('SUCCEEDED');
  });

  it('keeps unusual spacing, \\u escapes and microsecond dates exactly as sent', async () => {
    const jobId = randomUUID();
    const text = `{"status" :"SUCCEEDED",  "start_date":"2026-03-04T10:11:12.123456+00:00","stop_date":"2026-03-04T10:11:13.000001+02:00",\n\t"input":{"task":{"ip":"203.0.113.9","webhook_url":null,"custom_fields":{"note":"caf\\u00e9 \\ud83d\\ude00 \\"q\\""},"job_id":"${jobId}","context_id":"${randomUUID()}"}},"output":{"ip":"203.0.113.9","type":"isp","confidence_score":null,"ip_geo":{"city":null,"state":null,"country":"Fran\\u00e7e"},"company":{},"usage":{"total_usd":0,"balance_remaining_usd":1.5,"persons_count":0,"persons_usd":0,"phones_count":0,"phones_usd":0,"companies_count":0,"companies_usd":0}}}  `;
    const answer = await deliver(h.url, text, await sign(text, jobId));
    expect(answer.status).toBe(200);
    expect((await getJob(db(), jobId))?.envelope).toBe(text);
  });

  it('stores a body that begins with a byte order mark byte for byte, and derives its rows (issue 31)', async () => {
    const reveal = envelopeText('company-reveal');
    const page = largeSearchPage();
    for (const { text, jobId } of [reveal, page]) {
      const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
      const answer = await deliver(
        h.url,
        bytes,
        await signDelivery(bytes, { key: h.key, iat: NOW_S, jobId }),
      );
      expect(answer.status).toBe(200);
      const row = await getJob(db(), jobId);
      expect(Buffer.from(row!.envelope, 'utf8').equals(bytes)).toBe(true);
      expect(row?.payload_hash).toBe(computeBodyHash(bytes));
      // What `hooksync jobs get` prints: the stored envelope, every byte of it.
      const printed = await runCliCaptured(['jobs', 'get', jobId], {
        env: { HOOKSYNC_DATABASE_URL: h.databaseUrl },
      });
      expect(Buffer.from(printed.stdout, 'utf8').equals(bytes)).toBe(true);
    }
    expect((await getJob(db(), reveal.jobId))?.schema_valid).toBeTruthy();
    // The page's rows come from the normalizer, which reads the text past its mark as the verifier did.
    await h.running.store.settled();
    expect(
      await db().selectFrom('companies').where('job_id', '=', reveal.jobId).select('job_id').execute(),
    ).toHaveLength(1);
    expect(
      await db().selectFrom('persons').where('job_id', '=', page.jobId).select('job_id').execute(),
    ).toHaveLength(LARGE_PAGE_PERSONS);
  });

  it('answers a replayed token and a re-sent job with 200 duplicate, storing nothing twice', async () => {
    const { text, jobId } = envelopeText('job-change-moved');
    const token = await sign(text, jobId);
    expect((await deliver(h.url, text, token)).body).toMatchObject({ duplicate: false, kind: 'job_change' });
    expect((await deliver(h.url, text, token)).body).toMatchObject({ duplicate: true });
    expect((await deliver(h.url, text, await sign(text, jobId))).body).toMatchObject({ duplicate: true });
    const rows = await db().selectFrom('jobs').where('job_id', '=', jobId).selectAll().execute();
    expect(rows).toHaveLength(1);
  });

  it('converges 20 jobs x 10 concurrent duplicate deliveries on 20 stored jobs', async () => {
    const jobs = Array.from({ length: 20 }, () => envelopeText('search-contact'));
    const deliveries = await Promise.all(
      jobs.flatMap(({ text, jobId }) =>
        Array.from({ length: 10 }, async () => ({ text, jobId, token: await sign(text, jobId) })),
      ),
    );
    const answers = await Promise.all(deliveries.map((d) => deliver(h.url, d.text, d.token)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(20);
    const ids = jobs.map((j) => j.jobId);
    const stored = await db().selectFrom('jobs').where('job_id', 'in', ids).select('job_id').execute();
    expect(stored).toHaveLength(20);
    // Acknowledged means the envelope is committed; its rows follow once the normalizer has run.
    await h.running.store.settled();
    const persons = await db().selectFrom('persons').where('job_id', 'in', ids).select('job_id').execute();
    expect(persons.length).toBe(20 * 2);
  });

  describe('refuses one-mutation forgeries with the reason, quarantines them, stores nothing', () => {
    /** Refused after the body was read under a verified token: the body is kept whole (issue 15). */
    const BODY_KEPT = new Set(['BODY_HASH_MISMATCH', 'JOB_ID_MISMATCH']);
    type Case = [
      name: string,
      status: number,
      code: string,
      make: () => Promise<{ body: string; token: string | undefined; contentType?: string; jobId: string }>,
    ];
    const base = async (extra: Partial<Parameters<typeof signDelivery>[1]> = {}) => {
      const { text, jobId } = envelopeText('company-reveal');
      return { body: text, jobId, token: await sign(text, jobId, extra) };
    };
    const tokenWithHeader = async (header: Record<string, unknown>, signWith?: 'hs256') => {
      const { text, jobId } = envelopeText('company-reveal');
      const claims = {
        iat: NOW_S,
        exp: NOW_S + 900,
        jti: randomUUID(),
        job_id: jobId,
        body_hash: '',
        body_hash_alg: 'sha-256',
      };
      const { computeBodyHash } = await import('../../../src/contract/webhook-signature.js');
      claims.body_hash = computeBodyHash(text);
      if (signWith === 'hs256') {
        const secret = new TextEncoder().encode(
          JSON.stringify(await exportJWK((await createSigningKey()).privateKey)),
        );
        return {
          body: text,
          jobId,
          token: await new SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: h.key.kid })
            .sign(secret),
        };
      }
      const enc = (v: unknown) => base64url.encode(JSON.stringify(v));
      return { body: text, jobId, token: `${enc(header)}.${enc(claims)}.` };
    };
    const cases: Case[] = [
      [
        'a changed body byte',
        400,
        'BODY_HASH_MISMATCH',
        async () => {
          const d = await base();
          return { ...d, body: d.body.replace('"high"', '"HIGH"') };
        },
      ],
      [
        'a rogue key under a known kid',
        401,
        'SIGNATURE_INVALID',
        async () => {
          const { text, jobId } = envelopeText('company-reveal');
          return {
            body: text,
            jobId,
            token: await signDelivery(text, { key: await createSigningKey(h.key.kid), iat: NOW_S, jobId }),
          };
        },
      ],
      [
        'alg none',
        401,
        'SIGNATURE_BAD_ALG',
        () => tokenWithHeader({ alg: 'none', typ: 'JWT', kid: h.key.kid }),
      ],
      ['HS256 keyed with a key', 401, 'SIGNATURE_BAD_ALG', () => tokenWithHeader({}, 'hs256')],
      ['expired', 401, 'SIGNATURE_EXPIRED', () => base({ iat: NOW_S - 1000, exp: NOW_S - 100 })],
      ['exp far out', 401, 'SIGNATURE_LIFETIME_TOO_LONG', () => base({ exp: NOW_S + 86_400 })],
      ['iat in the future', 401, 'SIGNATURE_NOT_YET_VALID', () => base({ iat: NOW_S + 600 })],
      ...(['iat', 'exp', 'jti', 'job_id', 'body_hash', 'body_hash_alg'] as const).map(
        (claim): Case => [`no ${claim}`, 401, 'SIGNATURE_CLAIM_MISSING', () => base({ omit: [claim] })],
      ),
      ['a job_id claim for another job', 400, 'JOB_ID_MISMATCH', () => base({ jobId: randomUUID() })],
      ['another body_hash_alg', 401, 'BODY_HASH_ALG_UNSUPPORTED', () => base({ bodyHashAlg: 'sha-512' })],
      [
        'two segments',
        401,
        'SIGNATURE_MALFORMED',
        async () => {
          const d = await base();
          return { ...d, token: d.token.split('.').slice(0, 2).join('.') };
        },
      ],
      [
        'a header that is not JSON',
        401,
        'SIGNATURE_MALFORMED',
        async () => {
          const d = await base();
          return { ...d, token: `bm90IGpzb24.${d.token.split('.').slice(1).join('.')}` };
        },
      ],
      [
        'no signature at all',
        401,
        'SIGNATURE_MISSING',
        async () => ({ ...(await base()), token: undefined }),
      ],
      [
        'a non-JSON content type',
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        async () => ({ ...(await base()), contentType: 'text/plain' }),
      ],
    ];
    it.each(cases)('%s → %i %s', async (_name, status, code, make) => {
      const d = await make();
      const before = new Set((await db().selectFrom('quarantine').select('id').execute()).map((r) => r.id));
      const answer = await deliver(h.url, d.body, d.token, d.contentType);
      expect(answer.status).toBe(status);
      expect(answer.body).toMatchObject({ code });
      expect(await getJob(db(), d.jobId)).toBeUndefined();
      // The token may not name the job (no job_id, not decodable): the new row is the refusal's.
      const quarantined = (await listQuarantine(db())).filter((row) => !before.has(row.id));
      expect(quarantined).toHaveLength(1);
      expect(quarantined.map((q) => q.reason)).toContain(code);
      // A token that fails is refused before the body is read; an unsigned body is kept up to its prefix.
      const kept = Buffer.from(quarantined[0]!.body).toString('utf8');
      expect(kept).toBe(BODY_KEPT.has(code) || code === 'SIGNATURE_MISSING' ? d.body : '');
    });

    it('answers an unknown kid 500 (the sender retries) without reading the body or keeping anything', async () => {
      const { text, jobId } = envelopeText('company-reveal');
      const token = await signDelivery(text, { key: await createSigningKey('rogue-kid'), iat: NOW_S, jobId });
      const answer = await deliver(h.url, text, token);
      expect(answer.status).toBe(500);
      expect(answer.body).toMatchObject({ code: 'SIGNATURE_UNKNOWN_KID' });
      expect(await getJob(db(), jobId)).toBeUndefined();
      const rows = await db()
        .selectFrom('quarantine')
        .where('claimed_job_id', '=', jobId)
        .selectAll()
        .execute();
      expect(rows).toEqual([]);
    });
  });

  it('marks an existing ledger entry for refusals of a verified token, and creates none (issue 19)', async () => {
    const { recordExpectedJobs } = await import('../../../src/storage/ledger/record-expected-jobs.js');
    const expired = envelopeText('job-change-left');
    const unsigned = envelopeText('search-contact');
    const tampered = envelopeText('job-change-moved');
    const untracked = envelopeText('company-reveal');
    const backoff = new Date(NOW_MS + 3_600_000).toISOString();
    await recordExpectedJobs(
      db(),
      [expired, unsigned, tampered].map((e) => ({ job_id: e.jobId, kind: 'job_change' as const })),
      'track',
      new Date(NOW_MS - 60_000),
    );
    await db().updateTable('expected_jobs').set({ next_attempt_at: backoff }).execute();
    const expiredToken = await sign(expired.text, expired.jobId, { iat: NOW_S - 2000, exp: NOW_S - 1100 });
    expect((await deliver(h.url, expired.text, expiredToken)).status).toBe(401);
    expect((await deliver(h.url, unsigned.text, undefined)).status).toBe(401);
    const token = await sign(tampered.text, tampered.jobId);
    expect((await deliver(h.url, tampered.text.replace('moved', 'left'), token)).status).toBe(400);
    const forgedExpired = await signDelivery(untracked.text, {
      key: await createSigningKey(h.key.kid),
      iat: NOW_S - 2000,
      exp: NOW_S - 1100,
      jobId: untracked.jobId,
    });
    expect((await deliver(h.url, untracked.text, forgedExpired)).body).toMatchObject({
      code: 'SIGNATURE_INVALID',
    });
    const expiredUntracked = await sign(untracked.text, untracked.jobId, {
      iat: NOW_S - 2000,
      exp: NOW_S - 1100,
    });
    expect((await deliver(h.url, untracked.text, expiredUntracked)).status).toBe(401);
    const rows = await db()
      .selectFrom('expected_jobs')
      .where('job_id', 'in', [expired.jobId, unsigned.jobId, tampered.jobId, untracked.jobId])
      .select(['job_id', 'next_attempt_at', 'origin'])
      .execute();
    const byId = new Map(rows.map((r) => [r.job_id, r]));
    // The expired but genuine token made its entry due now; nothing unauthenticated touched the ledger.
    expect(byId.get(expired.jobId)?.next_attempt_at).toBe(new Date(NOW_MS).toISOString());
    expect(byId.get(unsigned.jobId)?.next_attempt_at).toBe(backoff);
    expect(byId.get(tampered.jobId)?.next_attempt_at).toBe(backoff);
    expect(byId.has(untracked.jobId)).toBe(false);
    expect(rows.every((r) => r.origin === 'track')).toBe(true);
  });

  it('refuses a 64 MB body with 413 without reading it, and creates no ledger entry', async () => {
    const big = new Uint8Array(64 * 1024 * 1024).fill(0x20);
    const { jobId } = envelopeText('company-reveal');
    const answer = await deliver(h.url, big, await sign('{}', jobId));
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'BODY_TOO_LARGE' });
    const entry = await db()
      .selectFrom('expected_jobs')
      .where('job_id', '=', jobId)
      .select('origin')
      .executeTakeFirst();
    expect(entry).toBeUndefined();
  });

  it('answers /healthz, /readyz and /metrics', async () => {
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${h.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, checks: { database: true, keys: true } });
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toMatch(/hooksync_deliveries_total\{outcome="stored",reason=""\} \d+/);
    expect(metrics).toMatch(/hooksync_quarantine_rows [1-9]/);
    expect(metrics).toMatch(/hooksync_verify_seconds_count [1-9]/);
    expect(metrics).toMatch(/hooksync_jwks_refreshes_total\{result="success"\} [1-9]/);
  });

  it('counts deliveries per hour and outcome for the status page', async () => {
    await h.running.stats.flush();
    const rows = await db().selectFrom('delivery_stats').selectAll().execute();
    const byOutcome = Object.fromEntries(rows.map((r) => [r.outcome, Number(r.count)]));
    expect(byOutcome.stored).toBeGreaterThanOrEqual(20);
    expect(byOutcome.refused).toBeGreaterThanOrEqual(15);
    expect(byOutcome.duplicate).toBeGreaterThanOrEqual(180);
    expect(rows.every((r) => r.hour === '2026-11-22T12:00:00.000Z')).toBe(true);
  });

  it('lists what it refused', async () => {
    const rows = await listQuarantine(db(), { limit: 5 });
    expect(rows.length).toBeGreaterThan(0);
  });

  it('never writes a token, key or body to its logs', async () => {
    const { text, jobId } = envelopeText('company-reveal');
    const token = await sign(text, jobId, { iat: NOW_S - 5000, exp: NOW_S - 4200 });
    await deliver(h.url, text, token);
    const logs = h.logs();
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(token.split('.')[2]!);
    expect(logs).not.toContain('203.0.113.42');
  });
}
