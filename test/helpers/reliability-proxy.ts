/**
 * A tiny round-robin HTTP proxy on 127.0.0.1 port 0, the load balancer in front of several receivers:
 * each request goes to the next target in turn, bytes untouched. A target that is down (connection
 * refused, killed mid-answer) costs the sender a 502, which the service retries (Events rule 2), as a
 * load balancer without retries of POSTs would answer.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface RoundRobinProxy {
  /** http://127.0.0.1:port */
  readonly url: string;
  /** Requests handed to each target (by index), answered or not. */
  readonly forwarded: readonly number[];
  /** Requests answered 502 because their target failed. */
  readonly failed: number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'upgrade']);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** Starts a proxy in front of `targets` (base URLs such as http://127.0.0.1:4000). */
export async function startRoundRobinProxy(targets: readonly string[]): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new TypeError('startRoundRobinProxy needs at least one target');
  const parsed = targets.map((t) => new URL(t));
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const forwarded = targets.map(() => 0);
  let failed = 0;
  let next = 0;

  const server = createServer((req, res) => {
    const index = next;
    next = (next + 1) % parsed.length;
    forwarded[index] = (forwarded[index] ?? 0) + 1;
    const target = parsed[index]!;
    const upstream = httpRequest(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: forwardable(req.headers),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      failed += 1;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, { 'content-type': 'application/json', connection: 'close' });
      res.end('{"status":"error","code":"BAD_GATEWAY","message":"target unavailable"}');
    });
    req.pipe(upstream);
    req.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    get failed() {
      return failed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
