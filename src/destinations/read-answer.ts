/**
 * Reads a destination's answer under a size cap (design.md: everything read from elsewhere is bounded):
 * the first bytes, for the error we keep, and the rest discarded as it streams.
 */

/** Bytes of an answer's body kept (the rest is read and dropped). */
export const ANSWER_KEEP_BYTES = 512;
/** Bytes of an answer's body read at most; beyond it the connection is dropped. */
export const ANSWER_MAX_BYTES = 64 * 1024;

/** The start of `response`'s body as text (at most {@link ANSWER_KEEP_BYTES}); never throws. */
export async function readAnswer(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let readBytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      readBytes += value.byteLength;
      if (keptBytes < ANSWER_KEEP_BYTES) {
        const part = value.subarray(0, ANSWER_KEEP_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.byteLength;
      }
      if (readBytes > ANSWER_MAX_BYTES) {
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
  } catch {
    // A body cut short still leaves its status and the bytes read so far.
  }
  return Buffer.concat(kept).toString('utf8').replace(/\s+/g, ' ').trim();
}
