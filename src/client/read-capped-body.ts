/**
 * Reading an answer from elsewhere (the service, a key set, a destination) under a size cap and a
 * deadline, so that a broken or hostile upstream costs at most the cap in memory and the deadline in time.
 * A declared Content-Length over the cap is refused before a byte is read; a body that grows past it is
 * cancelled at once (the connection is dropped, nothing more is downloaded).
 */
import { ResponseReadError } from '../errors.js';

/**
 * Largest answer read: 4 MiB, four times the largest answer the interface can produce (a 250-person Search
 * Contact page is about 1 MiB). Once parsed, JSON takes about 22 times its size in the heap.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Knobs of {@link readCappedBody}. */
export interface ReadCappedBodyOptions {
  /** Largest body accepted, in bytes (default {@link DEFAULT_MAX_RESPONSE_BYTES}). */
  readonly maxBytes?: number | undefined;
  /** Give up reading after this many ms (default: no deadline of its own; see `signal`). */
  readonly timeoutMs?: number | undefined;
  /** Aborting it stops the read; its reason is rethrown as is. */
  readonly signal?: AbortSignal | undefined;
  /** Names the answer in error messages, e.g. `GET /v1/job/change`. */
  readonly what?: string | undefined;
}

/**
 * The body of `response`, whole, or a {@link ResponseReadError}: `RESPONSE_TOO_LARGE` over the cap,
 * `TIMEOUT` past `timeoutMs`, `NETWORK_ERROR` when the connection fails midway.
 */
export async function readCappedBody(
  response: Response,
  options: ReadCappedBodyOptions = {},
): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
    throw new TypeError('maxBytes must be a non-negative integer');
  const { timeoutMs, signal } = options;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new TypeError('timeoutMs must be positive');
  const what = options.what ?? 'the answer';
  const tooLarge = (detail: string) =>
    new ResponseReadError(
      'RESPONSE_TOO_LARGE',
      `${what} is larger than ${maxBytes} bytes (${detail}); not read`,
      {
        maxBytes,
      },
    );

  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(`Content-Length ${declared}`);
  }
  if (response.body === null) return new Uint8Array(0);
  signal?.throwIfAborted();

  const reader = response.body.getReader();
  let timedOut = false;
  const stop = (reason: unknown): void => {
    reader.cancel(reason).catch(() => undefined);
  };
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop(new Error('deadline passed'));
        }, timeoutMs);
  const onAbort = (): void => stop(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });

  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (timedOut) throw deadline(what, timeoutMs, maxBytes, error);
        throw new ResponseReadError('NETWORK_ERROR', `${what} was cut off while being read`, {
          maxBytes,
          cause: error,
        });
      }
      // A cancel (deadline, abort) ends the stream quietly: done comes back with what was read so far.
      if (signal?.aborted) throw signal.reason;
      if (timedOut) throw deadline(what, timeoutMs, maxBytes);
      if (chunk.done) break;
      total += chunk.value.byteLength;
      if (total > maxBytes) {
        stop(new Error('over the size cap'));
        throw tooLarge(`over ${maxBytes} bytes read so far`);
      }
      chunks.push(chunk.value);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function deadline(
  what: string,
  timeoutMs: number | undefined,
  maxBytes: number,
  cause?: unknown,
): ResponseReadError {
  return new ResponseReadError('TIMEOUT', `${what} was not read whole within ${timeoutMs} ms`, {
    maxBytes,
    cause,
  });
}
