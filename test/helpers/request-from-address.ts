/**
 * One HTTP request from a chosen loopback source address (127.0.0.0/8: every such address reaches a server
 * bound to 127.0.0.1), so that a test can play several clients. fetch cannot choose its source address;
 * node:http can (localAddress).
 */
import { request } from 'node:http';

/** The answer, its body read whole (tests only send small requests). */
export interface AddressedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** Sends `method url` from `localAddress` (e.g. '127.0.0.2') and reads the answer. */
export function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<AddressedAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A form POST of `token` to the status page's sign-in, from `localAddress`. */
export function signInFrom(localAddress: string, base: string, token: string): Promise<AddressedAnswer> {
  return requestFrom(localAddress, `${base}/ui/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
}
