/**
 * readCappedBody against real sockets: a body under the cap comes back whole; a declared or actual size
 * over it fails RESPONSE_TOO_LARGE and stops the download; a stalled body fails TIMEOUT at its deadline;
 * the caller's abort wins; a connection cut midway is NETWORK_ERROR.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readCappedBody } from '../../../src/client/read-capped-body.js';
import { ResponseReadError } from '../../../src/errors.js';
import { type StreamingUpstream, startStreamingUpstream } from '../../helpers/streaming-upstream.js';
import { until } from '../../helpers/until.js';

const MiB = 1024 * 1024;
let upstream: StreamingUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function failure(promise: Promise<unknown>): Promise<ResponseReadError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ResponseReadError);
  return error as ResponseReadError;
}

describe('readCappedBody', () => {
  it('reads a body under the cap whole, byte for byte', async () => {
    upstream = await startStreamingUpstream({ hugeBytes: 3 * MiB + 5, isHuge: () => true });
    const bytes = await readCappedBody(await fetch(upstream.url), { maxBytes: 4 * MiB });
    expect(bytes.byteLength).toBe(3 * MiB + 5);
    expect(bytes.every((b) => b === 0x20)).toBe(true);
  });

  it('refuses a declared Content-Length over the cap before reading it', async () => {
    upstream = await startStreamingUpstream({
      hugeBytes: 600 * MiB,
      isHuge: () => true,
      declareLength: true,
    });
    const error = await failure(readCappedBody(await fetch(upstream.url), { maxBytes: MiB, what: 'GET /x' }));
    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toBe(`GET /x is larger than ${MiB} bytes (Content-Length ${600 * MiB}); not read`);
    expect(error.maxBytes).toBe(MiB);
    // Socket buffers take a few MiB at most before the cancel lands; nothing like 600 MiB.
    expect(upstream.bytesSent()).toBeLessThan(64 * MiB);
  });

  it('stops a chunked body as soon as it passes the cap', async () => {
    upstream = await startStreamingUpstream({ hugeBytes: 600 * MiB, isHuge: () => true });
    const error = await failure(readCappedBody(await fetch(upstream.url), { maxBytes: 8 * MiB }));
    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    await until(() => upstream?.hugeClosed() === 1, { message: 'the upstream sees the answer closed' });
    expect(upstream.bytesSent()).toBeLessThan(8 * MiB + 32 * MiB);
  });

  it('fails TIMEOUT when the body does not arrive within its deadline', async () => {
    upstream = await startStreamingUpstream({ hugeBytes: MiB, isHuge: () => true, stallMs: 10_000 });
    const error = await failure(
      readCappedBody(await fetch(upstream.url), { timeoutMs: 200, what: 'GET /slow' }),
    );
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toMatch(/GET \/slow was not read whole within 200 ms/);
  });

  it("rethrows the caller's abort reason", async () => {
    upstream = await startStreamingUpstream({ hugeBytes: MiB, isHuge: () => true, stallMs: 10_000 });
    const controller = new AbortController();
    const reason = new Error('stop now');
    const reading = readCappedBody(await fetch(upstream.url), { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(reading).rejects.toBe(reason);
  });

  it('fails NETWORK_ERROR when the connection is cut midway', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('x'.repeat(100));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const error = await failure(readCappedBody(await fetch(url)));
      expect(error.code).toBe('NETWORK_ERROR');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reads an empty body', async () => {
    upstream = await startStreamingUpstream({ hugeBytes: 0, isHuge: () => true });
    expect((await readCappedBody(await fetch(upstream.url))).byteLength).toBe(0);
  });
});
