/**
 * Rows out of an input file, streamed: a CSV with a header row, or JSON lines (one object a line). Each row
 * comes with the line of the file it ends on, so that a problem can be reported where the user can find it.
 * A file that is missing, a directory or unreadable is an InputError naming it.
 */
import { once } from 'node:events';
import { createWriteStream, type ReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { isPlainObject } from '../contract/custom-fields.js';
import { InputError } from '../errors.js';
import { cappedLines } from './capped-lines.js';

/**
 * The longest record read, bytes (issue 43 part 4): a CSV record or a JSON line past it is a problem, not a
 * row held in memory (a 150 MB line, a CSV quote never closed).
 */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** The two input formats. */
export const INPUT_FORMATS = ['csv', 'jsonl'] as const;
/** One of {@link INPUT_FORMATS}. */
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** One row of the file: its cells by column name, or why the line is not a row. */
export type SourceRow =
  | { readonly line: number; readonly cells: Readonly<Record<string, unknown>> }
  | { readonly line: number; readonly problem: string };

/** The format a file's name implies: `.jsonl` and `.ndjson` are JSON lines, anything else CSV. */
export function formatOfPath(path: string): InputFormat {
  return /\.(jsonl|ndjson)$/i.test(path) ? 'jsonl' : 'csv';
}

/** What a failed open of the input file says, in one line naming the file. */
function openFailure(path: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `${path}: no such file`;
  if (error.code === 'EISDIR') return `${path} is a directory: --from takes a file`;
  if (error.code === 'EACCES' || error.code === 'EPERM') return `${path}: permission denied`;
  return `${path}: cannot be read (${error.code ?? error.message})`;
}

/**
 * The input file opened for reading, or InputError naming it (missing, a directory, unreadable). Opening
 * first keeps a stream's `error` event from going unhandled when the file is not there.
 */
async function openInput(path: string, encoding?: BufferEncoding): Promise<ReadStream> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new InputError(openFailure(path, error as NodeJS.ErrnoException), { cause: error });
  }
  const stat = await handle.stat();
  if (stat.isDirectory()) {
    await handle.close();
    throw new InputError(openFailure(path, Object.assign(new Error('EISDIR'), { code: 'EISDIR' })));
  }
  return handle.createReadStream(encoding === undefined ? {} : { encoding });
}

/** Throws InputError naming `path` when it cannot be read as an input file; checked before any other work. */
export async function assertInputReadable(path: string): Promise<void> {
  (await openInput(path)).destroy();
}

/**
 * The rows of `path` in `format`. `onHeader` receives a CSV's column names once they are read. A CSV that
 * cannot be parsed throws InputError; a JSON line that is not an object is a row problem.
 */
export async function* readRows(
  path: string,
  format: InputFormat,
  onHeader?: (columns: readonly string[]) => void,
): AsyncGenerator<SourceRow> {
  if (format === 'jsonl') {
    yield* readJsonLines(path);
    return;
  }
  const input = await openInput(path);
  const parser = input.pipe(
    parse({
      bom: true,
      info: true,
      // A record past the cap (a quote never closed takes the rest of the file) stops the parse at once.
      max_record_size: MAX_RECORD_BYTES,
      skip_empty_lines: true,
      columns: (header: string[]) => {
        const columns = header.map((name) => name.trim());
        onHeader?.(columns);
        return columns;
      },
    }),
  );
  try {
    for await (const item of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      yield { line: item.info.lines, cells: item.record };
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new InputError(`${basename(path)}: ${message}`, { cause: error });
  } finally {
    // A reader that stops early (a watch's cycle paused, a launch stopped) closes the file now, not at GC.
    input.destroy();
  }
}

async function* readJsonLines(path: string): AsyncGenerator<SourceRow> {
  const input = await openInput(path);
  let line = 0;
  try {
    for await (const read of cappedLines(input, MAX_RECORD_BYTES)) {
      line += 1;
      if (!('text' in read)) {
        yield { line, problem: `longer than ${MAX_RECORD_BYTES} bytes (not read)` };
        continue;
      }
      const { text } = read;
      const trimmed = line === 1 ? text.replace(/^\uFEFF/, '').trim() : text.trim();
      if (trimmed === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch {
        yield { line, problem: 'not a JSON object (the line does not parse as JSON)' };
        continue;
      }
      if (!isPlainObject(value)) yield { line, problem: 'not a JSON object' };
      else yield { line, cells: value };
    }
  } finally {
    input.destroy();
  }
}

/** Standard input copied to a temporary file, so that it can be read twice (validate, then launch). */
export async function spoolToFile(input: Readable): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-launch-'));
  const path = join(dir, 'stdin');
  const out = createWriteStream(path, { mode: 0o600 });
  await pipeline(input, out);
  if (!out.closed) await once(out, 'close');
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
