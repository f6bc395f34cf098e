/**
 * Reads a request's raw bytes, untouched (the signature covers them), up to a limit.
 */
import type { IncomingMessage } from 'node:http';

/** 32 MB: more than any Search Contact page of 250 people. */
export const DEFAULT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** Why a body could not be read. */
export class BodyReadError extends Error {
  readonly reason: 'too_large' | 'aborted';
  constructor(reason: 'too_large' | 'aborted', message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * Collects the body into one Buffer. Refuses at once when Content-Length announces more than `limitBytes`,
 * and stops reading as soon as a chunked body passes it.
 */
export function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const announced = Number(request.headers['content-length']);
  if (Number.isFinite(announced) && announced > limitBytes) {
    return Promise.reject(new BodyReadError('too_large', `body of ${announced} bytes is over ${limitBytes}`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        request.resume();
        reject(new BodyReadError('too_large', `body is over ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onAbort = (): void => {
      cleanup();
      reject(new BodyReadError('aborted', 'the sender closed the connection before the body ended'));
    };
    const cleanup = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('aborted', onAbort);
      request.off('error', onAbort);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('aborted', onAbort);
    request.on('error', onAbort);
  });
}

/** True for the JSON media types a callback may carry (application/json, application/*+json, any charset). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
