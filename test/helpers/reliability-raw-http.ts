/**
 * HTTP below fetch: a request written as raw bytes on a socket (so that header names and values can hold
 * any byte, which fetch and node:http refuse to send), and the first response read back.
 */
import { connect } from 'node:net';

/** The first response on the connection, or how the connection ended without one. */
export interface RawAnswer {
  /** The status code, when a status line came back. */
  readonly status: number | undefined;
  /** The response body as text (up to its Content-Length). */
  readonly body: string;
  /** No status line: the server closed the connection, or `timeoutMs` passed. */
  readonly ended: 'answered' | 'closed' | 'timeout';
}

/** Writes `bytes` to 127.0.0.1:`port` and reads the first response; the socket is closed afterwards. */
export function sendRawRequest(port: number, bytes: Uint8Array, timeoutMs: number): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (answer: RawAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const parse = (): RawAnswer | undefined => {
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return undefined;
      const head = received.subarray(0, end).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length < end + 4 + length) return undefined;
      const body = received.subarray(end + 4, end + 4 + length).toString('utf8');
      return { status: status === undefined ? undefined : Number(status), body, ended: 'answered' };
    };
    const timer = setTimeout(() => finish({ status: undefined, body: '', ended: 'timeout' }), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = parse();
      if (answer) finish(answer);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(parse() ?? { status: undefined, body: '', ended: 'closed' }));
    socket.write(bytes);
  });
}
