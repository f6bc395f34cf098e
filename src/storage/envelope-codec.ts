/**
 * How an envelope is stored (jobs.envelope_z): its exact UTF-8 bytes, compressed, behind a one-byte codec
 * tag. Large envelopes (Search Contact pages) use brotli at quality 1: of the codecs Node 20 ships it was
 * both the fastest and the tightest at its fast levels on a realistic 520 KB page (6.1x in 1.4 ms, against
 * gzip level 1's 5.3x in 2.9 ms; bench/codecs.mjs). Small ones (reveals, job changes) use raw deflate with a
 * preset dictionary of the interface's member names: 3x on a 1.5 KB reveal, against brotli's 1.8x. They are
 * deflated at level 3 with an 8 KiB window and a small hash (issue 31): on a reveal, setting up the stream
 * (zeroing its window) and loading the dictionary is most of the cost, and level 6 took 1.2-1.4x the CPU on
 * the thread that reads requests for 3-9 % fewer bytes; every level and window inflates with the same options. Every
 * reader gets the original text back through {@link decodeEnvelope}, never the stored bytes. Quarantined
 * bodies (arbitrary bytes, maybe not UTF-8) go through the same codec as bytes: {@link encodeBytes}.
 */
import {
  brotliCompressSync,
  brotliDecompressSync,
  constants,
  createBrotliDecompress,
  createInflateRaw,
  deflateRawSync,
  inflateRawSync,
} from 'node:zlib';
import type { Kysely } from 'kysely';
import type { JobKind } from '../contract/enums.js';
import { StorageError } from '../errors.js';
import type { Database } from './database.js';
import { ENVELOPE_DICTIONARY_TEXT } from './envelope-dictionary.js';

/** Codec tags (the stored value's first byte). Never reuse one: stored envelopes depend on them. */
const BROTLI = 1;
const DEFLATE_DICTIONARY_1 = 2;
/** Envelopes up to this many UTF-8 bytes are deflated with the dictionary; larger ones brotli-compressed. */
export const DICTIONARY_MAX_BYTES = 16 * 1024;

const DICTIONARY = Buffer.from(ENVELOPE_DICTIONARY_TEXT, 'utf8');
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };
/**
 * An 8 KiB window holds the whole dictionary (7.5 KB) when the stream starts; past the first few hundred
 * bytes of an envelope its first bytes fall out of reach. Against a 16 KiB window that left the fixtures'
 * reveals the same size and a 2.6 KB job change 6 % larger (477 → 507 bytes), for about 60-90 thousand
 * fewer instructions per envelope (half the window and its chain to set up; issue 31).
 */
/**
 * Output in 1 KiB chunks (Node's default is 16 KiB): a reveal deflates to ~500 bytes, and a chunk under
 * 4 KiB comes from Node's buffer pool instead of an allocation of its own per call (about 2 µs of the ~25 of
 * a reveal; issue 42). A larger output simply takes more chunks.
 */
const DEFLATE_OPTIONS = { level: 3, windowBits: 13, memLevel: 4, chunkSize: 1024, dictionary: DICTIONARY };
const INFLATE_OPTIONS = { dictionary: DICTIONARY };
/**
 * A company reveal is deflated against the dictionary's last example alone, itself a reveal (its last
 * ~2.1 KB): the fixtures' reveals come out the same size as against the whole (493 and 271 → 273 bytes),
 * and loading a quarter of the dictionary into the stream takes about a quarter off the CPU of compressing
 * a reveal (35 → 26 µs; issue 42). Inflating is unchanged: any suffix of the dictionary inflates with the
 * whole, since a match reaches back from the envelope's first byte into the dictionary's last ones.
 */
const REVEAL_DEFLATE_OPTIONS = {
  ...DEFLATE_OPTIONS,
  dictionary: DICTIONARY.subarray(DICTIONARY.lastIndexOf('{"status":')),
};

/** The stored form of `text`: a codec tag, then the compressed UTF-8 bytes. */
export function encodeEnvelope(text: string): Buffer {
  return encodeBytes(Buffer.from(text, 'utf8'));
}

/**
 * The stored form of arbitrary `bytes` (a quarantined body, or an envelope of the kind `kind` when the
 * caller knows it): a codec tag, then the compressed bytes.
 */
export function encodeBytes(bytes: Uint8Array, kind?: JobKind): Buffer {
  const small = bytes.length <= DICTIONARY_MAX_BYTES;
  const body = small
    ? deflateRawSync(bytes, kind === 'company_reveal' ? REVEAL_DEFLATE_OPTIONS : DEFLATE_OPTIONS)
    : brotliCompressSync(bytes, {
        params: { ...BROTLI_OPTIONS.params, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
      });
  // A buffer of its own (never a slice of Node's shared pool): the store worker is handed it by transfer,
  // and a cloned view would copy the whole 8 KiB pool slab under it (issue 31).
  const stored = Buffer.alloc(body.length + 1);
  stored[0] = small ? DEFLATE_DICTIONARY_1 : BROTLI;
  body.copy(stored, 1);
  return stored;
}

/**
 * The envelope text `stored` holds, exactly as it arrived. Throws StorageError (not transient) when the
 * bytes are not a stored envelope: an unknown codec tag or a damaged body.
 */
export function decodeEnvelope(stored: Uint8Array): string {
  return decodeBytes(stored).toString('utf8');
}

/** The exact bytes `stored` holds (see {@link encodeBytes}); throws StorageError like {@link decodeEnvelope}. */
export function decodeBytes(stored: Uint8Array): Buffer {
  const bytes = Buffer.isBuffer(stored)
    ? stored
    : Buffer.from(stored.buffer, stored.byteOffset, stored.length);
  const body = bytes.subarray(1);
  let plain: Buffer;
  try {
    switch (bytes[0]) {
      case BROTLI:
        plain = brotliDecompressSync(body);
        break;
      case DEFLATE_DICTIONARY_1:
        plain = inflateRawSync(body, INFLATE_OPTIONS);
        break;
      default:
        throw new Error(`unknown codec tag ${String(bytes[0])}`);
    }
  } catch (error) {
    throw new StorageError(`a stored value cannot be read: ${(error as Error).message}`, {
      cause: error,
      transient: false,
    });
  }
  return plain;
}

/**
 * At most the first `maxBytes` of what `stored` holds, decompressing no more than needed (a status page
 * preview of a body that may be 32 MiB once decompressed). Throws StorageError like {@link decodeBytes}.
 */
export async function decodeBytesPrefix(stored: Uint8Array, maxBytes: number): Promise<Buffer> {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.length);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    const stream =
      bytes[0] === BROTLI
        ? createBrotliDecompress()
        : bytes[0] === DEFLATE_DICTIONARY_1
          ? createInflateRaw(INFLATE_OPTIONS)
          : undefined;
    if (stream === undefined) throw new Error(`unknown codec tag ${String(bytes[0])}`);
    stream.end(bytes.subarray(1));
    // Leaving the loop early destroys the stream: the rest is never decompressed.
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= maxBytes) break;
    }
  } catch (error) {
    throw new StorageError(`a stored value cannot be read: ${(error as Error).message}`, {
      cause: error,
      transient: false,
    });
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

/** The stored envelope of `jobId` as its original text, or undefined when no such job is stored. */
export async function loadEnvelopeText(db: Kysely<Database>, jobId: string): Promise<string | undefined> {
  const row = await db.selectFrom('jobs').select('envelope_z').where('job_id', '=', jobId).executeTakeFirst();
  return row === undefined ? undefined : decodeEnvelope(row.envelope_z);
}
