/**
 * The lines of a byte stream, each at most `maxBytes` (issue 43 part 4): a longer line is not held. Its bytes
 * are dropped as they come until the next line feed, and it is reported as too long, so that one 150 MB line
 * costs a chunk of memory, not 150 MB. `\r\n` and `\n` both end a line.
 */

/** A line's text, or the mark of a line over the cap. */
export type CappedLine = { readonly text: string } | { readonly tooLong: true };

/** The lines of `input` (chunks of bytes), in order. */
export async function* cappedLines(
  input: AsyncIterable<Buffer | string>,
  maxBytes: number,
): AsyncGenerator<CappedLine> {
  const decoder = new TextDecoder();
  let held: Buffer[] = [];
  let heldBytes = 0;
  let skipping = false;
  const end = (): CappedLine => {
    if (skipping) {
      skipping = false;
      return { tooLong: true };
    }
    const text = decoder.decode(Buffer.concat(held, heldBytes)).replace(/\r$/, '');
    held = [];
    heldBytes = 0;
    return { text };
  };
  for await (const chunk of input) {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a)) {
      if (!skipping && heldBytes + at > maxBytes) {
        held = [];
        heldBytes = 0;
        skipping = true;
      }
      if (!skipping) {
        held.push(bytes.subarray(0, at));
        heldBytes += at;
      }
      yield end();
      bytes = bytes.subarray(at + 1);
    }
    if (skipping || bytes.length === 0) continue;
    if (heldBytes + bytes.length > maxBytes) {
      held = [];
      heldBytes = 0;
      skipping = true;
      continue;
    }
    // A copy: the stream may reuse its buffer.
    held.push(Buffer.from(bytes));
    heldBytes += bytes.length;
  }
  if (skipping || heldBytes > 0) yield end();
}
