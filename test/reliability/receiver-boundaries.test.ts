/**
 * What an unauthenticated request can spend, one boundary at a time (issues 15 and 19), on a real receiver
 * with real sockets on loopback and a SQLite file: the memory budget's 429, the unsigned pool, slow bodies,
 * Node's header timeout, the quarantine's rate and byte budget, the ledger, the unsigned-fetch budget,
 * reused jtis, and a key published after its first use. Bounded in count and time.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import type { StartReceiverOptions } from '../../src/server/start-receiver.js';
import { createSimulator, type Simulator } from '../../src/simulator/create-simulator.js';
import { encodeBytes } from '../../src/storage/envelope-codec.js';
import { getJob } from '../../src/storage/job-queries.js';
import { recordExpectedJobs } from '../../src/storage/ledger/record-expected-jobs.js';
import { decodeQuarantineBody } from '../../src/storage/quarantine/quarantine-body.js';
import { envelopeText } from '../helpers/envelope-texts.js';
import { deliver, NOW_MS, NOW_S, type ReceiverHarness, startHarness } from '../helpers/receiver-harness.js';
import { type HeldRequest, holdRequest } from '../helpers/reliability-flood.js';
import { createSigningKey, type SigningKey, signDelivery } from '../helpers/webhook-signer.js';

let h: ReceiverHarness | undefined;
let sim: Simulator | undefined;
afterEach(async () => {
  await h?.close();
  await sim?.close();
  h = undefined;
  sim = undefined;
});

async function start(receiver: Partial<StartReceiverOptions>, env: Record<string, string> = {}) {
  h = await startHarness('sqlite', { receiver, env });
  return h;
}
const portOf = (url: string) => Number(new URL(url).port);
const json = { 'content-type': 'application/json' };

async function metric(url: string, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(pattern.exec(text)?.[1] ?? 0);
}

/** A search-contact envelope padded with trailing spaces (still the same JSON) to `bytes`. */
function paddedEnvelope(bytes: number): { text: string; jobId: string } {
  const { text, jobId } = envelopeText('search-contact');
  return { text: text + ' '.repeat(Math.max(0, bytes - Buffer.byteLength(text))), jobId };
}

/**
 * An 800 KB page sent all but its last bytes, holding its declared length of a 1 MiB body budget from its
 * first byte on, until `finish()`; resolves once the receiver shows it in flight.
 */
async function holdRoom(url: string, key: SigningKey): Promise<HeldRequest> {
  const first = paddedEnvelope(800 * 1024);
  const token = await signDelivery(first.text, { key, iat: NOW_S, jobId: first.jobId });
  const held = holdRequest(
    portOf(url),
    { ...json, 'x-webhook-signature': token },
    Buffer.from(first.text),
    1000,
  );
  await vi.waitFor(
    async () => expect(await metric(url, /hooksync_body_bytes_in_flight (\d+)/)).toBeGreaterThan(0),
    { timeout: 30_000, interval: 20 },
  );
  return held;
}

describe('receiver boundaries', () => {
  it('answers 429 with Retry-After before reading a body when the memory budget is spent', async () => {
    // No wait for room (HOOKSYNC_BODY_BUDGET_WAIT_MS=0): the answer is the 429 at once.
    const { url, key } = await start({ limits: { bodyBudgetBytes: 1024 * 1024, bodyBudgetWaitMs: 0 } });
    // The first body holds its declared length of the budget from its first byte on.
    const held = await holdRoom(url, key);
    const second = paddedEnvelope(300 * 1024);
    const secondToken = await signDelivery(second.text, { key, iat: NOW_S, jobId: second.jobId });
    const refused = await deliver(url, second.text, secondToken);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'BODY_BUDGET' });
    expect(refused.headers.get('retry-after')).toBe('1');
    held.finish();
    expect(await held.answered).toBe(200);
    held.destroy();
    expect((await deliver(url, second.text, secondToken)).status).toBe(200);
    expect(
      await metric(url, /hooksync_deliveries_total\{outcome="overloaded",reason="BODY_BUDGET"\} (\d+)/),
    ).toBe(1);
    expect(await metric(url, /hooksync_memory_refusals_total\{budget="bodies"\} (\d+)/)).toBe(1);
  });

  it('lets a delivery that finds the budget spent wait in line, and stores it once the body before it is', async () => {
    const { url, key, running } = await start({
      limits: { bodyBudgetBytes: 1024 * 1024, bodyBudgetWaitMs: 600_000 },
    });
    const held = await holdRoom(url, key);
    const second = paddedEnvelope(300 * 1024);
    const answered = deliver(
      url,
      second.text,
      await signDelivery(second.text, { key, iat: NOW_S, jobId: second.jobId }),
    );
    // In line, its body unread: nothing of it is stored while the first holds the room.
    await vi.waitFor(async () => expect(await metric(url, /hooksync_body_budget_waiting (\d+)/)).toBe(1), {
      timeout: 30_000,
      interval: 20,
    });
    expect(await getJob(running.database.db, second.jobId)).toBeUndefined();
    held.finish();
    expect(await held.answered).toBe(200);
    held.destroy();
    expect((await answered).status).toBe(200);
    expect((await getJob(running.database.db, second.jobId))?.job_id).toBe(second.jobId);
    expect(await metric(url, /hooksync_body_budget_wait_seconds_count\{outcome="admitted"\} (\d+)/)).toBe(1);
    expect(await metric(url, /hooksync_memory_refusals_total\{budget="bodies"\} (\d+)/)).toBe(0);
    expect(await metric(url, /hooksync_body_budget_waiting (\d+)/)).toBe(0);
  });

  it('gives the room back at once when the sender of a delivery waiting in line has gone', async () => {
    // Deadlines of ten minutes: a read that waited for the body of a sender gone would hold its room past the test.
    const { url, key, running } = await start({
      limits: { bodyBudgetBytes: 1024 * 1024, bodyBudgetWaitMs: 600_000, bodyDeadlineBaseMs: 600_000 },
    });
    const sockets: Socket[] = [];
    running.receiver.server.on('connection', (socket: Socket) => sockets.push(socket));
    const held = await holdRoom(url, key);
    const second = paddedEnvelope(300 * 1024);
    const leaving = holdRequest(
      portOf(url),
      {
        ...json,
        'x-webhook-signature': await signDelivery(second.text, { key, iat: NOW_S, jobId: second.jobId }),
      },
      Buffer.from(second.text),
      1000,
    );
    await vi.waitFor(async () => expect(await metric(url, /hooksync_body_budget_waiting (\d+)/)).toBe(1), {
      timeout: 30_000,
      interval: 20,
    });
    // The sender goes while it waits, and the server has seen its connection close before room is given back.
    const port = leaving.localPort();
    leaving.destroy();
    const serverSide = sockets.filter((socket) => socket.remotePort === port);
    expect(serverSide).toHaveLength(1);
    // (Not events.once: the server's socket reports the body cut short as an error before it closes.)
    const closing = serverSide[0]!;
    if (!closing.closed) await new Promise((resolve) => closing.once('close', resolve));
    held.finish();
    expect(await held.answered).toBe(200);
    held.destroy();
    // Let in, the delivery finds its sender gone and gives its room back: nothing is held in flight.
    await vi.waitFor(async () => expect(await metric(url, /hooksync_body_bytes_in_flight (\d+)/)).toBe(0), {
      timeout: 30_000,
      interval: 20,
    });
    expect(await metric(url, /hooksync_body_budget_waiting (\d+)/)).toBe(0);
    expect(await getJob(running.database.db, second.jobId)).toBeUndefined();
  });

  it('answers 429 to a delivery that waited in line as long as it may without room, and stores none of it', async () => {
    const { url, key, running } = await start({
      limits: { bodyBudgetBytes: 1024 * 1024, bodyBudgetWaitMs: 50 },
    });
    const held = await holdRoom(url, key);
    // The first body holds the room until it is finished, below: the wait can only end without room.
    const second = paddedEnvelope(300 * 1024);
    const refused = await deliver(
      url,
      second.text,
      await signDelivery(second.text, { key, iat: NOW_S, jobId: second.jobId }),
    );
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'BODY_BUDGET' });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await getJob(running.database.db, second.jobId)).toBeUndefined();
    expect(await metric(url, /hooksync_body_budget_wait_seconds_count\{outcome="refused"\} (\d+)/)).toBe(1);
    expect(await metric(url, /hooksync_memory_refusals_total\{budget="bodies"\} (\d+)/)).toBe(1);
    held.finish();
    expect(await held.answered).toBe(200);
    held.destroy();
  });

  it('refuses a large body over the budget with a 429 the sender reads, and reads almost none of the body', async () => {
    const { url, key, running } = await start({ limits: { bodyBudgetBytes: 1024 * 1024 } });
    const sockets: Socket[] = [];
    running.receiver.server.on('connection', (socket: Socket) => sockets.push(socket));
    // Larger than what loopback's socket buffers take at once: the sender is still sending when refused.
    const large = paddedEnvelope(16 * 1024 * 1024);
    const token = await signDelivery(large.text, { key, iat: NOW_S, jobId: large.jobId });
    // Node's fetch, as the simulator's sender (and the service's, as far as it is known) posts.
    const refused = await deliver(url, large.text, token);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'BODY_BUDGET' });
    expect(refused.headers.get('retry-after')).toBe('1');
    // The connection ends once the sender has the answer; by then the server has read only the first chunks
    // of the body: node:http did not read the rest to drop it.
    await Promise.all(sockets.map((socket) => (socket.closed ? undefined : once(socket, 'close'))));
    const read = sockets.reduce((sum, socket) => sum + socket.bytesRead, 0);
    expect(read).toBeLessThan(1024 * 1024);
    expect(await getJob(running.database.db, large.jobId)).toBeUndefined();
    expect(running.receiver.inFlight()).toBe(0);
    const small = paddedEnvelope(10 * 1024);
    expect(
      (
        await deliver(
          url,
          small.text,
          await signDelivery(small.text, { key, iat: NOW_S, jobId: small.jobId }),
        )
      ).status,
    ).toBe(200);
  });

  it('keeps unsigned bodies in a pool of their own: the genuine are answered, overloaded answers counted', async () => {
    const { url, key, running } = await start({ limits: { maxUnverified: 2 } });
    const slow = [0, 1].map(() => holdRequest(portOf(url), json, Buffer.alloc(10_000, 0x20), 10));
    await vi.waitFor(() => expect(running.receiver.inFlight()).toBe(2), { timeout: 30_000, interval: 20 });
    const third = await deliver(url, '{}', undefined);
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'OVERLOADED' });
    const { text, jobId } = envelopeText('company-reveal');
    expect((await deliver(url, text, await signDelivery(text, { key, iat: NOW_S, jobId }))).status).toBe(200);
    expect(
      await metric(url, /hooksync_deliveries_total\{outcome="overloaded",reason="OVERLOADED"\} (\d+)/),
    ).toBe(1);
    for (const request of slow) request.destroy();
  });

  it('cuts a body that does not arrive within its deadline', async () => {
    const { url } = await start({ limits: { bodyDeadlineBaseMs: 300 } });
    const slow = holdRequest(portOf(url), json, Buffer.alloc(10_000, 0x20), 10);
    expect(await slow.answered).toBe(500);
    expect(await slow.closed).toBeLessThan(3000);
  });

  it('closes a connection whose headers are late within about a second of the header timeout', async () => {
    const { url } = await start({ headersTimeoutMs: 1000 });
    const socket = connect({ host: '127.0.0.1', port: portOf(url) });
    socket.on('error', () => undefined);
    const started = performance.now();
    socket.write('POST /webhooks HTTP/1.1\r\nhost: x\r\n');
    const trickle = setInterval(() => socket.write('x-slow: a\r\n'), 100);
    const closedMs = await new Promise<number>((resolve) =>
      socket.on('close', () => resolve(performance.now() - started)),
    );
    clearInterval(trickle);
    // Node's own check runs every 30 s by default: the receiver checks every second.
    expect(closedMs).toBeGreaterThanOrEqual(900);
    expect(closedMs).toBeLessThan(3500);
  });

  it('stores refusals up to a rate per reason, counts the rest, and keeps bodies under a byte budget', async () => {
    // A clock that moves 1 ms per reading: "oldest" is by received_at, and all of it stays in one minute.
    let clock = NOW_MS;
    // The budget counts stored (compressed) bytes: room for the two signed bodies, not for the unsigned ones.
    const signed = [paddedEnvelope(50_000), paddedEnvelope(50_000)];
    const budget = signed.reduce((sum, { text }) => sum + encodeBytes(Buffer.from(`${text} `)).length, 0);
    const { url, key, running } = await start({
      now: () => clock++,
      limits: { quarantineRatePerMinute: 3, quarantineBudgetBytes: budget },
    });
    const db = running.database.db;
    for (let i = 0; i < 6; i++) {
      expect((await deliver(url, ' '.repeat(40_000), undefined)).status).toBe(401);
    }
    const missing = await db
      .selectFrom('quarantine')
      .where('reason', '=', 'SIGNATURE_MISSING')
      .selectAll()
      .execute();
    expect(missing).toHaveLength(3);
    expect(await metric(url, /hooksync_quarantine_skipped_total\{reason="SIGNATURE_MISSING"\} (\d+)/)).toBe(
      3,
    );
    // A verified token vouches for its body: kept whole, within the byte budget.
    for (const { text, jobId } of signed) {
      const token = await signDelivery(text, { key, iat: Math.floor(clock / 1000), jobId });
      expect((await deliver(url, `${text} `, token)).status).toBe(400);
    }
    // The trim runs a moment after the refusals it follows: wait for it, not for a duration.
    const rows = await vi.waitFor(
      async () => {
        const held = await db.selectFrom('quarantine').selectAll().execute();
        expect(held).toHaveLength(5);
        expect(held.reduce((sum, row) => sum + row.body_z.length, 0)).toBeLessThanOrEqual(budget);
        return held;
      },
      { timeout: 30_000, interval: 50 },
    );
    const dropped = rows.filter((row) => row.body_z.length === 0 && row.body_bytes === 0);
    expect(dropped.length).toBeGreaterThan(0);
    expect(
      dropped.every((row) => row.reason === 'SIGNATURE_MISSING' && row.detail?.includes('body dropped')),
    ).toBe(true);
    expect(
      rows.filter((row) => row.reason === 'BODY_HASH_MISMATCH').every((r) => r.body_bytes > 50_000),
    ).toBe(true);
    expect(await metric(url, /hooksync_quarantine_bodies_dropped_total (\d+)/)).toBe(dropped.length);
  });

  it('leaves the ledger as it was after hundreds of unauthenticated posts of every kind', async () => {
    const { url, key, running, jwks } = await start({ unknownKidCooldownMs: 30_000 });
    const db = running.database.db;
    const tracked = envelopeText('job-change-left');
    await recordExpectedJobs(db, [{ job_id: tracked.jobId, kind: 'job_change' }], 'track', new Date(NOW_MS));
    const before = await db.selectFrom('expected_jobs').selectAll().execute();
    const rogue = await createSigningKey(key.kid);
    const strangers = await createSigningKey();
    const hitsBefore = jwks.hits;
    const posts: Array<Promise<unknown>> = [];
    for (let i = 0; i < 60; i++) {
      const jobId = i % 2 === 0 ? tracked.jobId : randomUUID();
      const { text } = envelopeText('job-change-left', jobId);
      const expiredForged = await signDelivery(text, {
        key: rogue,
        iat: NOW_S - 2000,
        exp: NOW_S - 1100,
        jobId,
      });
      const unknownKid = await signDelivery(text, { key: strangers, iat: NOW_S, jobId });
      posts.push(
        deliver(url, text, undefined),
        deliver(url, text, expiredForged),
        deliver(url, text, unknownKid),
        deliver(url, text, 'garbage.token.here'),
        deliver(url, text, undefined, 'text/plain'),
      );
      // Header only, claiming a huge body, under a forged token.
      const held = holdRequest(
        portOf(url),
        { ...json, 'x-webhook-signature': expiredForged },
        Buffer.alloc(0),
        0,
      );
      posts.push(held.answered.finally(() => held.destroy()));
    }
    await Promise.all(posts);
    expect(await db.selectFrom('expected_jobs').selectAll().execute()).toEqual(before);
    expect(await getJob(db, tracked.jobId)).toBeUndefined();
    // Sixty forged kids cost one key-set fetch: one per 30 s cooldown.
    expect(jwks.hits - hitsBefore).toBe(1);
  });

  // A page's body crosses to the store's worker without a copy and comes back for the quarantine.
  it.each([
    ['a reveal', () => envelopeText('company-reveal')],
    ['a 300 KB page', () => paddedEnvelope(300_000)],
  ])(
    'refuses a jti already used for another job with 409, never a 2xx without a stored job (%s)',
    async (_, make) => {
      const { url, key, running } = await start({});
      const first = make();
      const jti = randomUUID();
      expect(
        (
          await deliver(
            url,
            first.text,
            await signDelivery(first.text, { key, iat: NOW_S, jti, jobId: first.jobId }),
          )
        ).status,
      ).toBe(200);
      const other = make();
      const reused = await deliver(
        url,
        other.text,
        await signDelivery(other.text, { key, iat: NOW_S, jti, jobId: other.jobId }),
      );
      expect(reused.status).toBe(409);
      expect(reused.body).toMatchObject({ code: 'JTI_REUSED' });
      expect(await getJob(running.database.db, other.jobId)).toBeUndefined();
      const kept = await running.database.db
        .selectFrom('quarantine')
        .where('reason', '=', 'JTI_REUSED')
        .selectAll()
        .execute();
      expect(kept.map((row) => decodeQuarantineBody(row.body_z).toString('utf8'))).toEqual([other.text]);
      // The same token and body again (a retry) is still 200 duplicate: that body is stored.
      const token = await signDelivery(first.text, { key, iat: NOW_S, jti, jobId: first.jobId });
      expect((await deliver(url, first.text, token)).body).toMatchObject({ duplicate: true });
    },
  );

  it('accepts a key published after its first use on the first retry past the cooldown', async () => {
    const { url, jwks } = await start({ unknownKidCooldownMs: 500 });
    const fresh = await createSigningKey('published-late');
    const { text, jobId } = envelopeText('company-reveal');
    const token = await signDelivery(text, { key: fresh, iat: NOW_S, jobId });
    expect((await deliver(url, text, token)).status).toBe(500);
    jwks.keys.push(fresh.publicJwk);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await deliver(url, text, token)).status).toBe(200);
  });

  it('spends finder calls on unsigned callbacks only for expected ids and a small budget of others', async () => {
    sim = await createSimulator({
      seed: 7,
      retryBaseMs: 20,
      rate: { perInterval: 1000, intervalSeconds: 60 },
    });
    let finderCalls = 0;
    const counting: typeof fetch = (input, init) => {
      const target = String(input instanceof Request ? input.url : input);
      if ((init?.method ?? 'GET') === 'GET' && target.includes('job_id=')) finderCalls++;
      return fetch(input, init);
    };
    const { url, running } = await start(
      { now: Date.now, fetch: counting, limits: { unsignedFetchUnknownPerMinute: 2 } },
      {
        HOOKSYNC_JWKS_URL: sim.jwksUrl,
        HOOKSYNC_UNSIGNED: 'fetch',
        HOOKSYNC_API_BASE_URL: sim.url,
        HOOKSYNC_API_KEY: sim.apiKey,
      },
    );
    const answers = new Map<number, number>();
    for (let i = 0; i < 20; i++) {
      const { text } = envelopeText('job-change-moved', randomUUID());
      const { status } = await deliver(url, text, undefined);
      answers.set(status, (answers.get(status) ?? 0) + 1);
    }
    expect(answers.get(429)).toBe(18);
    // The two in the budget reached the finder (which does not know them: 401 FINDER_REFUSED).
    expect(answers.get(401)).toBe(2);
    expect(finderCalls).toBe(2);
    const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey });
    const { job, raw } = await client.jobChange.launch({
      contact_linkedin: 'https://www.linkedin.com/in/jane-doe',
    });
    const jobId = job.input.task.job_id as string;
    await recordExpectedJobs(
      running.database.db,
      [{ job_id: jobId, kind: 'job_change' }],
      'launch',
      new Date(),
    );
    const fetched = await deliver(url, raw, undefined);
    expect(fetched.status).toBe(200);
    expect((await getJob(running.database.db, jobId))?.source).toBe('finder');
    expect(await metric(url, /hooksync_unsigned_fetches_total\{result="budget_spent"\} (\d+)/)).toBe(18);
  });
});
