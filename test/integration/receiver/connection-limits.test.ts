/**
 * Issue 43 part 3: under HOOKSYNC_MEMORY_MB=256 the server's connections are in the memory plan: a bounded
 * number of them, a header block of 8 KiB at most (a 15 KB one is refused with 431 and costs no more), a
 * shorter headers timeout; a genuine sender is still served. Real sockets on port 0, SQLite.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONNECTION_BASE_BYTES,
  PLANNED_HEADERS_TIMEOUT_MS,
  PLANNED_MAX_HEADER_BYTES,
  planMemory,
  WAITING_BYTES,
} from '../../../src/server/memory-plan.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { deliver, NOW_S, type ReceiverHarness, startHarness } from '../../helpers/receiver-harness.js';
import { signDelivery } from '../../helpers/webhook-signer.js';

const CEILING_MB = 256;
let h: ReceiverHarness;

beforeAll(async () => {
  h = await startHarness('sqlite', { env: { HOOKSYNC_MEMORY_MB: String(CEILING_MB) } });
});
afterAll(async () => {
  await h?.close();
});

/** What the server answers to a request whose headers are `headerBytes` long, read off the raw socket. */
function rawStatusLine(url: string, headerBytes: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(headerBytes)}\r\n\r\n`);
    socket.setTimeout(10_000, () => socket.destroy());
  });
}

describe('connection limits from the memory ceiling', () => {
  it('bounds connections and header bytes, inside the bodies budget', () => {
    const plan = planMemory(CEILING_MB * 1024 * 1024);
    const { maxConnections, maxHeaderBytes, headersTimeoutMs } = plan.connectionLimits;
    expect(maxHeaderBytes).toBe(PLANNED_MAX_HEADER_BYTES);
    expect(headersTimeoutMs).toBe(PLANNED_HEADERS_TIMEOUT_MS);
    const connectionsBytes = maxConnections! * (CONNECTION_BASE_BYTES + PLANNED_MAX_HEADER_BYTES);
    // Connections, the line of deliveries waiting for room (one socket read each) and the bodies admitted.
    expect(connectionsBytes + WAITING_BYTES + plan.receiverLimits.bodyBudgetBytes! * 5).toBeLessThanOrEqual(
      plan.budgets!.bodies,
    );
    const { server } = h.running.receiver;
    expect(server.maxConnections).toBe(maxConnections);
    expect(server.headersTimeout).toBe(headersTimeoutMs);
    // 8,000 connections of 15 KB headers took serve from 128 to 282 MiB: now far fewer are let in.
    expect(maxConnections!).toBeLessThan(8_000 / 4);
  });

  it('refuses a 15 KB header block with 431, and still serves a genuine sender', async () => {
    expect(await rawStatusLine(h.url, 15 * 1024)).toMatch(/^HTTP\/1\.1 431/);
    expect(await rawStatusLine(h.url, 1024)).toMatch(/^HTTP\/1\.1 200/);
    const { text, jobId } = envelopeText('company-reveal');
    const token = await signDelivery(text, { key: h.key, iat: NOW_S, jobId });
    expect((await deliver(h.url, text, token)).status).toBe(200);
  });
});
