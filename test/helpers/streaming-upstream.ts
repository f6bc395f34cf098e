/**
 * An upstream that answers with a body of any size, generated as it is sent (one 64 KiB buffer written
 * again and again, with backpressure), so that a 600 MB answer costs the test almost no memory; it counts
 * the bytes the client actually took before it hung up. Other requests can be passed to a real upstream.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const CHUNK = Buffer.alloc(64 * 1024, 0x20);

/** A running streaming upstream. */
export interface StreamingUpstream {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Bytes of huge bodies written to sockets so far (what the client made the server send). */
  bytesSent(): number;
  /** Huge answers begun. */
  hugeAnswers(): number;
  /** Huge answers whose socket has closed: nothing more is sent for them. */
  hugeClosed(): number;
  close(): Promise<void>;
}

/** Options of {@link startStreamingUpstream}. */
export interface StreamingUpstreamOptions {
  /** Size of the huge body, in bytes. */
  readonly hugeBytes: number;
  /** Which requests get the huge body. */
  readonly isHuge: (req: IncomingMessage) => boolean;
  /** Declare the size in Content-Length (default false: chunked). */
  readonly declareLength?: boolean;
  /** Where other requests go (e.g. the simulator); without it they get 404. */
  readonly passTo?: string;
  /** Send the huge body's first bytes, then stall for this many ms between chunks. */
  readonly stallMs?: number;
}

/** Starts the upstream on 127.0.0.1, port 0. */
export async function startStreamingUpstream(options: StreamingUpstreamOptions): Promise<StreamingUpstream> {
  let sent = 0;
  let huge = 0;
  let hugeClosed = 0;
  const sendHuge = (res: ServerResponse): void => {
    huge += 1;
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(options.declareLength ? { 'content-length': String(options.hugeBytes) } : {}),
    });
    let left = options.hugeBytes;
    const pump = (): void => {
      while (left > 0 && !res.destroyed) {
        const piece = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
        left -= piece.length;
        sent += piece.length;
        const more = res.write(piece);
        if (options.stallMs !== undefined && left > 0) {
          setTimeout(pump, options.stallMs);
          return;
        }
        if (!more) {
          res.once('drain', pump);
          return;
        }
      }
      if (left === 0) res.end();
    };
    res.on('close', () => {
      left = 0;
      hugeClosed += 1;
    });
    pump();
  };
  const pass = (req: IncomingMessage, res: ServerResponse): void => {
    if (options.passTo === undefined) {
      res.writeHead(404).end();
      return;
    }
    const target = new URL(req.url ?? '/', options.passTo);
    const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  const server = createServer((req, res) => (options.isHuge(req) ? sendHuge(res) : pass(req, res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytesSent: () => sent,
    hugeAnswers: () => huge,
    hugeClosed: () => hugeClosed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
