/**
 * Reads a request's raw bytes, untouched (the signature covers them), within a size limit, a deadline
 * scaled to the declared length, and the receiver's memory budget; or just a bounded prefix of them.
 */
import type { Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HooksyncError, type RequestRefusal, type TransientCode } from '../errors.js';

/** 32 MB: more than any Search Contact page of 250 people. */
export const DEFAULT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** Time every body gets, on top of what its length needs at the minimum rate, in ms. */
export const DEFAULT_BODY_DEADLINE_BASE_MS = 10_000;
/** The slowest a body may arrive on average, in bytes per second (a slow sender holds a slot). */
export const DEFAULT_BODY_MIN_BYTES_PER_SECOND = 512 * 1024;

/** How long a body of `declaredBytes` may take to arrive, in ms. */
export function bodyDeadlineMs(
  declaredBytes: number,
  baseMs = DEFAULT_BODY_DEADLINE_BASE_MS,
  minBytesPerSecond = DEFAULT_BODY_MIN_BYTES_PER_SECOND,
): number {
  return baseMs + Math.ceil((declaredBytes * 1000) / minBytesPerSecond);
}

/** The Content-Length a request declares, or undefined (chunked, absent, not a number). */
export function declaredLength(request: IncomingMessage): number | undefined {
  const value = request.headers['content-length'];
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/** Why a body could not be read. */
export type BodyReadFailure = 'too_large' | 'aborted' | 'timeout' | 'over_budget';

/** The code each failure is answered with: a refusal for a body over the limit, else a retry. */
const BODY_READ_CODES = {
  too_large: 'BODY_TOO_LARGE',
  aborted: 'BODY_ABORTED',
  timeout: 'BODY_TIMEOUT',
  over_budget: 'BODY_BUDGET',
} as const satisfies Record<BodyReadFailure, RequestRefusal | TransientCode>;

/** Why a body could not be read. */
export class BodyReadError extends HooksyncError {
  declare readonly code: (typeof BODY_READ_CODES)[BodyReadFailure];
  readonly reason: BodyReadFailure;
  constructor(reason: BodyReadFailure, message: string) {
    super(BODY_READ_CODES[reason], message);
    this.reason = reason;
  }
}

/** What a body reader does with each event of the request; `listen` wires them and returns the unwiring. */
interface BodyListeners {
  data(chunk: Buffer): void;
  end(): void;
  /** The sender went away (or the socket failed) before the body ended. */
  aborted(): void;
}

function listen(request: IncomingMessage, on: BodyListeners): () => void {
  const onData = (chunk: Buffer): void => on.data(chunk);
  const onEnd = (): void => on.end();
  const onAbort = (): void => on.aborted();
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('aborted', onAbort);
  request.on('error', onAbort);
  return () => {
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('aborted', onAbort);
    request.off('error', onAbort);
  };
}

const ABORTED_MESSAGE = 'the sender closed the connection before the body ended';

/** Knobs of {@link streamBody}. */
export interface StreamBodyOptions {
  limitBytes: number;
  /** The whole body must have arrived within this many ms. */
  deadlineMs: number;
  /** Fed every chunk as it arrives (the body hash). */
  hash?: Hash;
  /**
   * Asked for more memory when the body grows past what the caller reserved upfront (a chunked body has
   * no declared length); false stops the read with `over_budget`. The caller keeps count of what it
   * granted and gives it back.
   */
  reserve?: (bytes: number) => boolean;
  /** Bytes already reserved by the caller; default 0. */
  reservedBytes?: number;
}

/**
 * Collects the body as a stream: each chunk is hashed as it arrives, and the read stops at the limit,
 * the deadline, or when the memory budget will not grow. Resolves with the body and the bytes reserved.
 */
export function streamBody(
  request: IncomingMessage,
  options: StreamBodyOptions,
): Promise<{ body: Buffer; reservedBytes: number }> {
  const { limitBytes, hash } = options;
  // A sender gone before its body is read (one that left while it waited for room in the budget): its
  // 'aborted' came before any listener below, and nothing more will; without this the read would hold
  // its reservation until the deadline.
  if (request.destroyed) return Promise.reject(new BodyReadError('aborted', ABORTED_MESSAGE));
  const arrived = takeArrivedBody(request, options);
  if (arrived !== undefined) return arrived;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let reserved = options.reservedBytes ?? 0;
    const stop = (): void => {
      clearTimeout(timer);
      unlisten();
    };
    const fail = (reason: BodyReadFailure, message: string): void => {
      stop();
      request.pause();
      reject(new BodyReadError(reason, message));
    };
    const timer = setTimeout(
      () => fail('timeout', `the body did not arrive within ${options.deadlineMs} ms`),
      options.deadlineMs,
    );
    const unlisten = listen(request, {
      data(chunk) {
        size += chunk.length;
        if (size > limitBytes) {
          fail('too_large', `body is over ${limitBytes} bytes`);
          return;
        }
        if (size > reserved) {
          const more = Math.max(size - reserved, 64 * 1024);
          if (!options.reserve?.(more)) {
            fail('over_budget', 'the memory budget for bodies is spent');
            return;
          }
          reserved += more;
        }
        hash?.update(chunk);
        chunks.push(chunk);
      },
      end() {
        stop();
        resolve({
          body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size),
          reservedBytes: reserved,
        });
      },
      aborted: () => fail('aborted', ABORTED_MESSAGE),
    });
  });
}

/**
 * The body at once when it has already arrived whole (a small body comes in the packet of its headers, and
 * the HTTP parser has buffered it while the token was checked): no flowing mode, listeners or deadline
 * timer per request (issue 31). The same limit and memory budget apply; undefined when the body is not all
 * there yet (then it is streamed).
 */
function takeArrivedBody(
  request: IncomingMessage,
  options: StreamBodyOptions,
): Promise<{ body: Buffer; reservedBytes: number }> | undefined {
  if (!request.complete || request.destroyed || request.readableFlowing === true) return undefined;
  const size = request.readableLength;
  if (size > options.limitBytes) return undefined;
  let reserved = options.reservedBytes ?? 0;
  if (size > reserved) {
    const more = Math.max(size - reserved, 64 * 1024);
    if (!options.reserve?.(more)) {
      request.pause();
      return Promise.reject(new BodyReadError('over_budget', 'the memory budget for bodies is spent'));
    }
    reserved += more;
  }
  // In paused mode, read() hands over everything buffered (null only when nothing is: then it is streamed).
  const body = size === 0 ? EMPTY_BODY : (request.read() as Buffer | null);
  if (body === null) return undefined;
  options.hash?.update(body);
  return Promise.resolve({ body, reservedBytes: reserved });
}

const EMPTY_BODY = Buffer.alloc(0);

/**
 * Reads at most `maxBytes` of the body (an unauthenticated one), within `deadlineMs`. `complete` says
 * whether that was the whole body; the rest is left unread (the caller answers and closes).
 */
export function readPrefix(
  request: IncomingMessage,
  maxBytes: number,
  deadlineMs: number,
): Promise<{ prefix: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      clearTimeout(timer);
      unlisten();
    };
    const finish = (complete: boolean): void => {
      stop();
      if (!complete) request.pause();
      resolve({ prefix: Buffer.concat(chunks, Math.min(size, maxBytes)), complete });
    };
    const timer = setTimeout(() => {
      stop();
      request.pause();
      reject(new BodyReadError('timeout', `the body did not arrive within ${deadlineMs} ms`));
    }, deadlineMs);
    const unlisten = listen(request, {
      data(chunk) {
        const room = maxBytes - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += chunk.length;
        if (size > maxBytes) finish(false);
      },
      end: () => finish(true),
      aborted() {
        stop();
        reject(new BodyReadError('aborted', ABORTED_MESSAGE));
      },
    });
  });
}

/** True for the JSON media types a callback may carry (application/json, application/*+json, any charset). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
