/**
 * A real webhook receiver on 127.0.0.1, port 0, for the simulator's deliveries: it records every request
 * (headers, exact body bytes, arrival time) and answers with the status its `answer` function picks.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface ReceivedRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Arrival time, ms (performance clock). */
  readonly atMs: number;
}

/** A running receiver. */
export interface Receiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a receiver. `answer(n)` gives the status for the n-th request (0-based); returning `'hang'`
 * never answers (to exercise the sender's timeout).
 */
export async function startReceiver(
  answer: (index: number) => number | 'hang' = () => 200,
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = requests.length;
      requests.push({
        method: req.method ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        atMs: performance.now(),
      });
      const status = answer(index);
      if (status === 'hang') return;
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
