/**
 * A real key-set endpoint for tests: node:http on 127.0.0.1, port 0, whose answer the test switches
 * (keys, failure, hang, slow, garbage) and whose hits it counts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JWKS_PATH } from '../../../../src/contract/webhook-signature.js';

/** How the server answers the next requests. */
export type JwksMode = 'ok' | 'fail' | 'hang' | 'stall-body' | 'garbage' | 'oversized';

/** A running key-set server. */
export interface JwksServer {
  url: string;
  /** Requests received so far. */
  hits: number;
  mode: JwksMode;
  /** Delay before answering in 'ok' mode, in ms (real time). */
  delayMs: number;
  keys: unknown[];
  close(): Promise<void>;
}

/** Starts a key-set server holding `keys`. */
export async function startJwksServer(keys: unknown[]): Promise<JwksServer> {
  const state = { hits: 0, mode: 'ok' as JwksMode, delayMs: 0, keys };
  const server: Server = createServer((request, response) => {
    state.hits += 1;
    if (request.url !== JWKS_PATH) {
      response.writeHead(404).end();
      return;
    }
    switch (state.mode) {
      case 'fail':
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"boom"}');
        return;
      case 'hang':
        return;
      case 'stall-body':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"keys":[');
        return;
      case 'garbage':
        response.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json</html>');
        return;
      case 'oversized':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ keys: state.keys, pad: 'x'.repeat(300 * 1024) }));
        return;
      case 'ok': {
        const body = JSON.stringify({ keys: state.keys });
        const send = () => response.writeHead(200, { 'content-type': 'application/json' }).end(body);
        if (state.delayMs > 0) setTimeout(send, state.delayMs);
        else send();
        return;
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${JWKS_PATH}`,
    get hits() {
      return state.hits;
    },
    set hits(value: number) {
      state.hits = value;
    },
    get mode() {
      return state.mode;
    },
    set mode(value: JwksMode) {
      state.mode = value;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    get keys() {
      return state.keys;
    },
    set keys(value: unknown[]) {
      state.keys = value;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
