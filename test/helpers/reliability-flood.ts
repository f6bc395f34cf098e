/**
 * Tools of the hostile-client floods (issue 15): large POSTs on node:http that record whatever answer comes
 * back before the server closes the connection, the resident memory of a process sampled from /proc, and
 * the on-disk size of a SQLite database with its WAL.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';

/** How one large POST ended: the status if an answer came, else how the connection ended. */
export interface FloodAnswer {
  status: number | undefined;
  ended: 'answered' | 'reset' | 'timeout';
  ms: number;
}

/** POSTs `body` to `url` with `headers`; never rejects (a reset after the answer still counts the answer). */
export function postBody(
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<FloodAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let status: number | undefined;
    let settled = false;
    const finish = (ended: FloodAnswer['ended']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, ended: status === undefined ? ended : 'answered', ms: performance.now() - started });
    };
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
      agent: false,
    });
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    req.on('response', (response) => {
      status = response.statusCode;
      response.resume();
      response.on('end', () => finish('answered'));
      response.on('error', () => finish('answered'));
    });
    req.on('error', () => finish('reset'));
    req.end(body);
  });
}

/** Resident set size of `pid` in bytes (Linux /proc). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

/** Samples the RSS of `pid` every `everyMs` until stopped; `peak()` is the largest seen. */
export function sampleResident(pid: number, everyMs = 25): { peak(): number; stop(): number } {
  let peak = residentBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, residentBytes(pid));
    } catch {
      // The process exited.
    }
  }, everyMs);
  return {
    peak: () => peak,
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** Bytes of a SQLite database on disk: the file, its WAL and shared-memory file. */
export function sqliteBytes(path: string): number {
  return ['', '-wal', '-shm']
    .map((suffix) => `${path}${suffix}`)
    .filter((file) => existsSync(file))
    .reduce((sum, file) => sum + statSync(file).size, 0);
}

/** A request left half-sent on a raw socket: its headers and the start of its body, the rest held back. */
export interface HeldRequest {
  /** Sends the rest of the body. */
  finish(): void;
  /** Resolves with the first answer's status line code, or undefined once the server closes without one. */
  readonly answered: Promise<number | undefined>;
  /** Resolves with ms from the start until the server closed the connection. */
  readonly closed: Promise<number>;
  destroy(): void;
  /** The client side's port once connected: tells the server's socket of this request among others. */
  localPort(): number | undefined;
}

/** Starts a POST /webhooks on 127.0.0.1:`port` and sends only `sentBytes` of `body`. */
export function holdRequest(
  port: number,
  headers: Record<string, string>,
  body: Buffer,
  sentBytes: number,
): HeldRequest {
  const started = performance.now();
  const socket = connect({ host: '127.0.0.1', port });
  const head = [
    'POST /webhooks HTTP/1.1',
    'host: 127.0.0.1',
    `content-length: ${body.length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  socket.on('error', () => undefined);
  socket.write(head);
  socket.write(body.subarray(0, sentBytes));
  let received = '';
  const answered = new Promise<number | undefined>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      if (status !== undefined && received.includes('\r\n\r\n')) resolve(Number(status));
    });
    socket.on('close', () => resolve(undefined));
  });
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => resolve(performance.now() - started)),
  );
  return {
    finish: () => socket.write(body.subarray(sentBytes)),
    answered,
    closed,
    destroy: () => socket.destroy(),
    localPort: () => socket.localPort,
  };
}
