/**
 * A small configurable HTTP server on 127.0.0.1, port 0, for client tests: a handler decides each answer
 * (or drops the connection, or never answers), and every request is recorded with its arrival time.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the stub saw it. */
export interface StubRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** `performance.now()` when the request's head arrived. */
  readonly receivedAtMs: number;
}

/** An answer: status (default 200), headers, body (a string is sent as UTF-8). */
export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** `'destroy'` cuts the connection without an answer; `'hang'` never answers. */
export type StubAction = StubReply | 'destroy' | 'hang';

/** Decides the answer to one request; `hit` counts from 1 over the server's life. */
export type StubHandler = (request: StubRequest, hit: number) => StubAction | Promise<StubAction>;

/** A running stub. */
export interface HttpStubServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: StubRequest[];
  setHandler(handler: StubHandler): void;
  close(): Promise<void>;
}

/** JSON reply helper. */
export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): StubReply {
  return { status, body: JSON.stringify(value), headers: { 'content-type': 'application/json', ...headers } };
}

function send(res: ServerResponse, reply: StubReply): void {
  const body = reply.body ?? '';
  res.writeHead(reply.status ?? 200, {
    'content-length': String(Buffer.byteLength(body)),
    ...reply.headers,
  });
  res.end(body);
}

/** Starts a stub on 127.0.0.1 port 0; `close()` it in `afterAll`/`finally`. */
export async function startHttpStubServer(initial?: StubHandler): Promise<HttpStubServer> {
  let handler: StubHandler = initial ?? (() => ({ status: 404 }));
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const receivedAtMs = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const request: StubRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAtMs,
      };
      requests.push(request);
      Promise.resolve(handler(request, requests.length)).then(
        (action) => {
          if (action === 'destroy') req.socket.destroy();
          else if (action !== 'hang') send(res, action);
        },
        (error: unknown) => send(res, { status: 599, body: String(error) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
