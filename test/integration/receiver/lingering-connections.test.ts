/**
 * The bound on connections answered before their body was read (lingerWithoutReading): each lingers
 * half-closed for its sender to read the answer, and beyond the cap the one that has lingered longest is
 * destroyed. A node:http server refusing every POST as the receiver does, with real sockets on loopback;
 * the linger timer is held still (fake setTimeout) so that what is open is counted, not timed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../../src/receiver/create-metrics.js';
import {
  LINGER_MS,
  lingeringConnections,
  lingerWithoutReading,
  MAX_LINGERING,
} from '../../../src/receiver/linger-without-reading.js';

let server: Server | undefined;
afterEach(async () => {
  vi.useRealTimers();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server answering every POST 429 + Retry-After before reading its body; its sockets, in order. */
async function startRefusingServer(maxLingering: number): Promise<{ url: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  server = createServer((request, response) => {
    lingerWithoutReading(request, maxLingering);
    const payload = JSON.stringify({ status: 'error', code: 'BODY_BUDGET' });
    response
      .writeHead(429, { 'content-type': 'application/json', connection: 'close', 'retry-after': '1' })
      .end(payload);
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, sockets };
}

async function settle(until: () => boolean): Promise<void> {
  while (!until()) await new Promise((resolve) => setImmediate(resolve));
}

describe('lingering refused connections', () => {
  it('keeps at most the cap lingering, destroying the oldest, and every sender reads its 429', async () => {
    const { url, sockets } = await startRefusingServer(4);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Larger than loopback's buffers take at once: each sender is still sending when it is answered.
    const body = Buffer.alloc(4 * 1024 * 1024, 0x20);
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await fetch(url, { method: 'POST', body });
      seen.push(`${answer.status} ${answer.headers.get('retry-after')}`);
      await answer.arrayBuffer();
      // Its answer is out and its connection half-closed: it lingers (or, past the cap, an older one went).
      await settle(() => sockets[i]?.writableFinished === true);
    }
    expect(seen).toEqual(Array(10).fill('429 1'));
    expect(sockets).toHaveLength(10);
    // The six that lingered longest were destroyed as newer ones came; the last four wait for their timer.
    expect(sockets.map((socket) => socket.destroyed)).toEqual([
      ...Array(6).fill(true),
      ...Array(4).fill(false),
    ]);
    expect(lingeringConnections()).toBe(4);
    const metrics = createMetrics({ defaults: false });
    expect(await metrics.registry.getSingleMetricAsString('hooksync_lingering_connections')).toMatch(
      /^hooksync_lingering_connections 4$/m,
    );
    vi.advanceTimersByTime(LINGER_MS);
    expect(sockets.every((socket) => socket.destroyed)).toBe(true);
    await settle(() => lingeringConnections() === 0);
    // What each read of its body: the first chunks only, never the rest.
    expect(sockets.reduce((sum, socket) => sum + socket.bytesRead, 0)).toBeLessThan(10 * 1024 * 1024);
  });

  it('lingers every connection its full time below the cap', async () => {
    const { url, sockets } = await startRefusingServer(MAX_LINGERING);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const body = Buffer.alloc(1024 * 1024, 0x20);
    for (let i = 0; i < 10; i++) {
      const answer = await fetch(url, { method: 'POST', body });
      expect(answer.status).toBe(429);
      await answer.arrayBuffer();
      await settle(() => sockets[i]?.writableFinished === true);
    }
    expect(sockets.filter((socket) => !socket.destroyed)).toHaveLength(10);
    expect(lingeringConnections()).toBe(10);
    vi.advanceTimersByTime(LINGER_MS);
    expect(sockets.every((socket) => socket.destroyed)).toBe(true);
  });
});
