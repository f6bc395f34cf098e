/** The key-set fetch follows redirects only within its own origin (issue 19), on real sockets. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignatureError } from '../../../src/errors.js';
import { fetchKeySet } from '../../../src/webhooks/fetch-key-set.js';

const KEYS = { keys: [] };
let home: Server;
let elsewhere: Server;
let homeUrl: string;
let elsewhereUrl: string;
let elsewhereHits = 0;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  elsewhere = createServer((_req, res) => {
    elsewhereHits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(KEYS));
  });
  elsewhereUrl = await listen(elsewhere);
  home = createServer((req, res) => {
    if (req.url === '/moved') res.writeHead(302, { location: '/jwks' }).end();
    else if (req.url === '/away') res.writeHead(307, { location: `${elsewhereUrl}/jwks` }).end();
    else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(KEYS));
  });
  homeUrl = await listen(home);
});
afterAll(async () => {
  await new Promise((resolve) => home.close(resolve));
  await new Promise((resolve) => elsewhere.close(resolve));
});

describe('fetchKeySet redirects', () => {
  const get = (path: string) => fetchKeySet({ url: `${homeUrl}${path}`, fetch, timeoutMs: 2000 });

  it('follows a redirect within the same origin', async () => {
    await expect(get('/moved')).resolves.toEqual(KEYS);
  });

  it('refuses a redirect to another origin without asking it', async () => {
    const error = await get('/away').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as SignatureError).code).toBe('KEYSET_UNAVAILABLE');
    expect(elsewhereHits).toBe(0);
  });

  it('gives up on a redirect loop', async () => {
    await expect(get('/loop')).rejects.toBeInstanceOf(SignatureError);
  });
});
