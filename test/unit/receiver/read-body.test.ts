import { createHash, randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { streamBody } from '../../../src/receiver/read-body.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Sends `parts` as one request body (with Content-Length when `declared`), read by streamBody on the server. */
async function readThrough(
  parts: readonly Buffer[],
  declared: boolean,
): Promise<{ body: Buffer; digest: string; reservedBytes: number }> {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const read = new Promise<{ body: Buffer; digest: string; reservedBytes: number }>((resolve, reject) => {
    server = createServer((request: IncomingMessage, response) => {
      const hash = createHash('sha256');
      const length = request.headers['content-length'];
      const declaredBytes = length === undefined ? undefined : Number(length);
      streamBody(request, {
        limitBytes: 4 * 1024 * 1024,
        deadlineMs: 10_000,
        hash,
        reservedBytes: declaredBytes ?? 0,
        reserve: () => true,
        ...(declaredBytes !== undefined ? { declaredBytes } : {}),
      }).then(({ body, reservedBytes }) => {
        resolve({ body, digest: hash.digest('hex'), reservedBytes });
        response.end('ok');
      }, reject);
    });
  });
  const listening = server as unknown as Server;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const { port } = listening.address() as AddressInfo;
  const answered = new Promise<void>((resolve, reject) => {
    const request = httpRequest(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        headers: declared ? { 'content-length': String(total) } : { 'transfer-encoding': 'chunked' },
      },
      (response) => {
        response.resume();
        response.on('end', resolve);
      },
    );
    request.on('error', reject);
    // Each part in a turn of its own, so that the server sees several chunks.
    const send = (index: number): void => {
      if (index === parts.length) {
        request.end();
        return;
      }
      request.write(parts[index], () => setImmediate(() => send(index + 1)));
    };
    send(0);
  });
  const [result] = await Promise.all([read, answered]);
  return result;
}

describe('streamBody', () => {
  const parts = Array.from({ length: 9 }, (_, i) => randomBytes(40_000 + i * 1_000));
  const whole = Buffer.concat(parts);
  const digest = createHash('sha256').update(whole).digest('hex');

  it('with a declared length, copies the chunks into one body of that length as they arrive', async () => {
    const read = await readThrough(parts, true);
    expect(read.body.length).toBe(whole.length);
    expect(read.body.equals(whole)).toBe(true);
    expect(read.digest).toBe(digest);
    expect(read.reservedBytes).toBe(whole.length);
  });

  it('without one (chunked), joins the chunks at the end', async () => {
    const read = await readThrough(parts, false);
    expect(read.body.equals(whole)).toBe(true);
    expect(read.digest).toBe(digest);
  });
});
