import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SignatureError } from '../../../src/errors.js';
import {
  createKeySetCache,
  type KeySetCache,
  type KeySetCacheOptions,
} from '../../../src/webhooks/key-set-cache.js';
import { verifyCallback } from '../../../src/webhooks/verify-callback.js';
import { type JwksServer, startJwksServer } from './support/jwks-server.js';
import { createFakeClock, createSigningKey, type FakeClock, makeDelivery, NOW_MS } from './support/tokens.js';

const current = createSigningKey('key-a');
const next = createSigningKey('key-b');
let server: JwksServer;
let clock: FakeClock;
const caches: KeySetCache[] = [];

beforeAll(async () => {
  server = await startJwksServer([current.jwk]);
});
afterAll(() => server.close());
afterEach(() => {
  for (const cache of caches.splice(0)) cache.stop();
  server.mode = 'ok';
  server.delayMs = 0;
  server.keys = [current.jwk];
});

function makeCache(options: Partial<KeySetCacheOptions> = {}): KeySetCache {
  clock = createFakeClock();
  const cache = createKeySetCache({ url: server.url, now: clock.now, ...options });
  caches.push(cache);
  return cache;
}

async function rejection(promise: Promise<unknown>): Promise<SignatureError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SignatureError);
  return error as SignatureError;
}

describe('KeySetCache loading', () => {
  it('loads the key set and reports it', async () => {
    const cache = makeCache();
    expect(cache.ready).toBe(false);
    await cache.load();
    const stats = cache.stats();
    expect(stats).toMatchObject({
      ready: true,
      kids: ['key-a'],
      fetches: 1,
      failures: 0,
      lastError: undefined,
    });
    expect(stats.lastSuccessAt).toEqual(new Date(NOW_MS));
    const lookup = await cache.getKey('key-a');
    expect(lookup.status).toBe('found');
  });

  it('throws KEYSET_UNAVAILABLE from load when nothing can be loaded', async () => {
    server.mode = 'fail';
    const cache = makeCache();
    const error = await rejection(cache.load());
    expect(error.code).toBe('KEYSET_UNAVAILABLE');
    expect(error.message).toContain('HTTP 500');
    expect(cache.ready).toBe(false);
    expect(cache.stats()).toMatchObject({ fetches: 1, failures: 1, lastError: 'key set answered HTTP 500' });
  });

  it('skips keys of other types and broken keys, keeping the Ed25519 ones', async () => {
    server.keys = [
      { kty: 'RSA', kid: 'rsa', n: 'AQAB', e: 'AQAB', alg: 'RS256' },
      { kty: 'EC', crv: 'P-256', kid: 'ec', x: 'AA', y: 'AA' },
      { kty: 'OKP', crv: 'Ed448', kid: 'ed448', x: current.jwk.x },
      { ...next.jwk, kid: 'short-x', x: 'AAAA' },
      { ...next.jwk, kid: 'bad-alg', alg: 'ES256' },
      { ...next.jwk, kid: 'enc', use: 'enc' },
      { ...next.jwk, kid: undefined },
      'not a key',
      current.jwk,
      { ...next.jwk, kid: 'key-a' },
      { kty: 'OKP', crv: 'Ed25519', kid: 'no-use-no-alg', x: next.jwk.x },
      { ...next.jwk, kid: 'extra-members', key_ops: ['verify'], x5t: 'abc' },
    ];
    const cache = makeCache();
    await cache.load();
    expect(cache.stats().kids).toEqual(['key-a', 'extra-members']);
    const verified = await verifyCallback(makeDelivery({ key: current }), { keys: cache, now: clock.now });
    expect(verified.kid).toBe('key-a');
  });

  it.each([
    [
      'only foreign keys',
      () => (server.keys = [{ kty: 'RSA', kid: 'r', n: 'AQAB', e: 'AQAB' }]),
      'no usable',
    ],
    ['an empty key set', () => (server.keys = []), 'no usable'],
    ['a body that is not JSON', () => (server.mode = 'garbage'), 'not JSON'],
    ['an oversized answer', () => (server.mode = 'oversized'), 'larger than'],
  ])('fails on %s', async (_name, arrange, message) => {
    arrange();
    const error = await rejection(makeCache().load());
    expect(error.code).toBe('KEYSET_UNAVAILABLE');
    expect(error.transient).toBe(true);
    expect(error.message).toContain(message);
  });

  it('fails on an unreachable address', async () => {
    const cache = makeCache({ url: 'http://127.0.0.1:1/.well-known/jwks.json' });
    const error = await rejection(cache.load());
    expect(error.code).toBe('KEYSET_UNAVAILABLE');
    expect(error.message).toContain('could not be fetched');
  });

  it.each(['hang', 'stall-body'] as const)('gives up after timeoutMs when the server %s', async (mode) => {
    server.mode = mode;
    const cache = makeCache({ timeoutMs: 150 });
    const started = performance.now();
    const error = await rejection(cache.load());
    const elapsedMs = performance.now() - started;
    expect(error.code).toBe('KEYSET_UNAVAILABLE');
    expect(error.message).toContain('within 150 ms');
    expect(elapsedMs).toBeGreaterThanOrEqual(140);
    expect(elapsedMs).toBeLessThan(2000);
  });

  it('bounds a fetch implementation that ignores the abort signal', async () => {
    const never: typeof fetch = () => new Promise<Response>(() => undefined);
    const error = await rejection(makeCache({ timeoutMs: 50, fetch: never }).load());
    expect(error.message).toContain('within 50 ms');
  });

  it('rejects bad options with TypeError', () => {
    expect(() => createKeySetCache({ url: 'not a url' })).toThrow(TypeError);
    expect(() => createKeySetCache({ url: 'ftp://example.com/jwks.json' })).toThrow(TypeError);
    expect(() => createKeySetCache({ url: server.url, timeoutMs: 0 })).toThrow(TypeError);
    expect(() => createKeySetCache({ url: server.url, unknownKidCooldownMs: Number.NaN })).toThrow(TypeError);
  });

  it('coalesces concurrent refreshes into one fetch', async () => {
    const cache = makeCache();
    server.delayMs = 50;
    const hits = server.hits;
    const [, , , lookup] = await Promise.all([
      cache.load(),
      cache.refresh(),
      cache.refresh(),
      cache.getKey('key-a'),
    ]);
    expect(lookup?.status).toBe('found');
    expect(server.hits).toBe(hits + 1);
    expect(cache.stats().fetches).toBe(1);
  });
});

describe('KeySetCache and unknown kids', () => {
  it('picks up a rotation at once: unknown kid, one refetch, found', async () => {
    const cache = makeCache();
    await cache.load();
    server.keys = [current.jwk, next.jwk];
    const hits = server.hits;
    const verified = await verifyCallback(makeDelivery({ key: next }), { keys: cache, now: clock.now });
    expect(verified.kid).toBe('key-b');
    expect(server.hits).toBe(hits + 1);
    expect((await cache.getKey('key-b')).status).toBe('found');
    expect(server.hits).toBe(hits + 1);
  });

  it('bounds refetches to one per cooldown under a flood of forged kids', async () => {
    const cache = makeCache({ unknownKidCooldownMs: 30_000 });
    await cache.load();
    const hits = server.hits;
    const first = await Promise.all(Array.from({ length: 50 }, (_, i) => cache.getKey(`forged-${i}`)));
    expect(server.hits).toBe(hits + 1);
    expect(first[0]).toEqual({
      status: 'unknown-transient',
      kid: 'forged-0',
      reason: 'SIGNATURE_UNKNOWN_KID',
    });
    expect(first.every((lookup) => lookup.status !== 'found')).toBe(true);
    clock.advance(10_000);
    const second = await Promise.all(Array.from({ length: 50 }, (_, i) => cache.getKey(`forged-late-${i}`)));
    expect(server.hits).toBe(hits + 1);
    expect(second.every((lookup) => lookup.status === 'unknown-transient')).toBe(true);
    expect(second[0]).toMatchObject({ reason: 'SIGNATURE_UNKNOWN_KID' });
    clock.advance(20_000);
    const third = await Promise.all(Array.from({ length: 50 }, (_, i) => cache.getKey(`forged-late-${i}`)));
    expect(server.hits).toBe(hits + 2);
    // Never final (issue 19): the sender retries, and the next cooldown brings the next fetch.
    expect(third.every((lookup) => lookup.status === 'unknown-transient')).toBe(true);
  });

  it('accepts a key published after its first use on the first lookup past the cooldown (issue 19)', async () => {
    const cache = makeCache({ unknownKidCooldownMs: 1000 });
    await cache.load();
    expect(await cache.getKey('key-b')).toMatchObject({ status: 'unknown-transient' });
    server.keys = [current.jwk, next.jwk];
    expect(await cache.getKey('key-b')).toMatchObject({ status: 'unknown-transient' });
    clock.advance(1000);
    expect((await cache.getKey('key-b')).status).toBe('found');
  });

  it('finds a key published during the cooldown once the cooldown ends', async () => {
    const cache = makeCache({ unknownKidCooldownMs: 1000 });
    await cache.load();
    await cache.getKey('forged');
    server.keys = [current.jwk, next.jwk];
    expect(await cache.getKey('key-b')).toMatchObject({
      status: 'unknown-transient',
      reason: 'SIGNATURE_UNKNOWN_KID',
    });
    clock.advance(1000);
    expect((await cache.getKey('key-b')).status).toBe('found');
  });

  it('keeps verifying with held keys while the key set is down, and answers transient for new kids', async () => {
    const cache = makeCache({ unknownKidCooldownMs: 1000 });
    await cache.load();
    server.mode = 'fail';
    await rejection(cache.refresh());
    expect(cache.ready).toBe(true);
    const verified = await verifyCallback(makeDelivery({ key: current }), { keys: cache, now: clock.now });
    expect(verified.kid).toBe('key-a');
    expect(await cache.getKey('key-b')).toEqual({
      status: 'unknown-transient',
      kid: 'key-b',
      reason: 'KEYSET_UNAVAILABLE',
    });
    expect(await cache.getKey('key-c')).toEqual({
      status: 'unknown-transient',
      kid: 'key-c',
      reason: 'KEYSET_UNAVAILABLE',
    });
    expect(cache.stats()).toMatchObject({ ready: true, kids: ['key-a'], failures: 2 });
    expect(cache.stats().lastFailureAt).toEqual(new Date(NOW_MS));
    server.mode = 'ok';
    server.keys = [next.jwk];
    clock.advance(1000);
    expect((await cache.getKey('key-b')).status).toBe('found');
  });

  it('stops verifying a key the service withdrew', async () => {
    const cache = makeCache();
    await cache.load();
    server.keys = [next.jwk];
    await cache.refresh();
    expect(cache.stats().kids).toEqual(['key-b']);
    const error = await rejection(
      verifyCallback(makeDelivery({ key: current }), { keys: cache, now: clock.now }),
    );
    expect(error.code).toBe('SIGNATURE_UNKNOWN_KID');
    // Answered 500: the service retries five times, then gives up; nothing verifies with it.
    expect(error.transient).toBe(true);
  });

  it('reuses the imported key of an unchanged kid across refreshes', async () => {
    const cache = makeCache();
    await cache.load();
    const before = await cache.getKey('key-a');
    server.keys = [current.jwk, next.jwk];
    await cache.refresh();
    const after = await cache.getKey('key-a');
    expect(before.status === 'found' && after.status === 'found' && before.key === after.key).toBe(true);
    server.keys = [{ ...next.jwk, kid: 'key-a' }];
    await cache.refresh();
    const replaced = await cache.getKey('key-a');
    expect(replaced.status === 'found' && before.status === 'found' && replaced.key !== before.key).toBe(
      true,
    );
  });
});

describe('KeySetCache refresh', () => {
  it('refreshes periodically once started, and stops', async () => {
    const cache = makeCache({ refreshIntervalMs: 40 });
    await cache.load();
    server.keys = [next.jwk];
    cache.start();
    cache.start();
    await vi.waitFor(() => expect(cache.stats().kids).toEqual(['key-b']), { timeout: 2000, interval: 10 });
    cache.stop();
    const hits = server.hits;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(server.hits).toBe(hits);
  });

  it('retries a failed periodic refresh after the cooldown, not a whole interval', async () => {
    const cache = makeCache({ refreshIntervalMs: 1000, unknownKidCooldownMs: 20 });
    await cache.load();
    server.mode = 'fail';
    cache.start();
    // At the interval, 3 failures would take 3 s; with the cooldown they come 20 ms apart after the first.
    await vi.waitFor(() => expect(cache.stats().failures).toBeGreaterThanOrEqual(3), {
      timeout: 1900,
      interval: 10,
    });
    expect(cache.ready).toBe(true);
    server.mode = 'ok';
    server.keys = [next.jwk];
    await vi.waitFor(() => expect(cache.stats().kids).toEqual(['key-b']), { timeout: 500, interval: 10 });
  });

  it('keeps trying after a failed load once started, without waiting a whole interval', async () => {
    server.mode = 'fail';
    const cache = makeCache({ refreshIntervalMs: 600_000, unknownKidCooldownMs: 20 });
    await rejection(cache.load());
    server.mode = 'ok';
    cache.start();
    await vi.waitFor(() => expect(cache.ready).toBe(true), { timeout: 1000, interval: 10 });
  });

  it('refreshes lazily in the background when a lookup finds the set stale', async () => {
    const cache = makeCache({ refreshIntervalMs: 60_000 });
    await cache.load();
    server.keys = [current.jwk, next.jwk];
    expect((await cache.getKey('key-a')).status).toBe('found');
    expect(cache.stats().fetches).toBe(1);
    clock.advance(60_000);
    expect((await cache.getKey('key-a')).status).toBe('found');
    await vi.waitFor(() => expect(cache.stats().kids).toEqual(['key-a', 'key-b']), {
      timeout: 2000,
      interval: 10,
    });
    expect(cache.stats().fetches).toBe(2);
  });

  it('logs a failed fetch through the injected logger', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    server.mode = 'fail';
    const cache = makeCache({ logger: pino({ level: 'debug' }, sink) });
    await rejection(cache.load());
    expect(lines.some((line) => line.includes('key set fetch failed'))).toBe(true);
  });
});
