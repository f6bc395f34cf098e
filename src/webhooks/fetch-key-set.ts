/**
 * One bounded GET of the webhook key set (interface, Endpoints: Webhook JWKS): a deadline covering
 * connect, headers and body, a size cap, and no redirect to another origin, so a slow or hostile endpoint
 * cannot stall verification or hand us someone else's keys.
 */
import { SignatureError } from '../errors.js';

/** Largest key-set answer read, in bytes; a real one holds a handful of keys. */
export const DEFAULT_KEY_SET_MAX_BYTES = 256 * 1024;

/** Same-origin redirects followed at most. */
const MAX_REDIRECTS = 3;

/** Knobs of one key-set fetch. */
export interface FetchKeySetOptions {
  url: string;
  fetch: typeof globalThis.fetch;
  /** Deadline for the whole exchange, in milliseconds. */
  timeoutMs: number;
  /** Answer size cap in bytes; default {@link DEFAULT_KEY_SET_MAX_BYTES}. */
  maxBytes?: number;
}

/**
 * Fetches the key set and returns its parsed JSON. Throws SignatureError KEYSET_UNAVAILABLE (transient)
 * on a network failure, the deadline, a non-2xx answer, an oversized answer or a body that is not JSON.
 */
export async function fetchKeySet(options: FetchKeySetOptions): Promise<unknown> {
  const { url, timeoutMs } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_KEY_SET_MAX_BYTES;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // Racing the deadline as well as passing the signal keeps the bound even for a fetch that ignores it.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = unavailable(`key set did not answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([fetchJson(url, options.fetch, controller.signal, maxBytes), deadline]);
  } catch (error) {
    if (error instanceof SignatureError) throw error;
    if (controller.signal.aborted) throw controller.signal.reason;
    throw unavailable(`key set could not be fetched: ${describe(error)}`, error);
  } finally {
    clearTimeout(timer);
  }
}

async function fetchJson(
  url: string,
  fetchFn: typeof globalThis.fetch,
  signal: AbortSignal,
  maxBytes: number,
): Promise<unknown> {
  let response = await fetchFn(url, { signal, redirect: 'manual', headers: { accept: 'application/json' } });
  // Redirects are followed by hand, and only within the key set's own origin (issue 19): a key set that
  // sends us elsewhere is not the service's.
  let here = new URL(url);
  for (let hops = 0; isRedirect(response.status); hops++) {
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    const next = location === null ? undefined : new URL(location, here);
    if (next === undefined || next.origin !== here.origin || hops >= MAX_REDIRECTS) {
      throw unavailable(`key set answered HTTP ${response.status} with a redirect that is not followed`);
    }
    here = next;
    response = await fetchFn(next.href, {
      signal,
      redirect: 'manual',
      headers: { accept: 'application/json' },
    });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(`key set answered HTTP ${response.status}`);
  }
  const text = await readTextBounded(response, maxBytes);
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw unavailable('key set answer is not JSON', cause);
  }
}

async function readTextBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(`key set answer is larger than ${maxBytes} bytes`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw unavailable(`key set answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function unavailable(message: string, cause?: unknown): SignatureError {
  return new SignatureError('KEYSET_UNAVAILABLE', message, { cause, transient: true });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
