/**
 * The input of `hooksync track --from FILE`: one job id a line, or a CSV whose header has a job_id
 * column (and optionally a kind column). Parsed and validated whole: a bad id anywhere fails the list; a
 * CSV without a job_id column is refused as such.
 */
import { parse } from 'csv-parse/sync';
import { ValidationError } from '../../errors.js';
import {
  type ExpectedJobCandidate,
  type TrackableKind,
  validateExpectedJobs,
} from './parse-expected-jobs.js';
import type { ExpectedJob } from './record-expected-jobs.js';

/** A header line naming a job_id column, with `,` `;` or tab between fields. */
const CSV_HEADER = /(^|[,;\t])\s*"?job_id"?\s*("?\s*[,;\t]|$)/i;

/** A parsed CSV record with the line it started on (csv-parse's `info` option). */
interface CsvRecord {
  readonly record: string[];
  readonly info: { readonly lines: number };
}

/**
 * Reads job ids from `text` (a file's content). Lines that are empty or start with `#` are skipped in the
 * one-id-a-line form. Throws ValidationError naming each bad id with its line, as validateExpectedJobs.
 */
export function parseJobIdList(text: string, defaultKind?: TrackableKind): ExpectedJob[] {
  if (typeof text !== 'string') throw new TypeError('parseJobIdList needs the text of the list');
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split(/\r\n|\n|\r/);
  const firstIndex = lines.findIndex((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  const first = firstIndex === -1 ? undefined : lines[firstIndex];
  if (first !== undefined && !CSV_HEADER.test(first) && looksLikeCsvHeader(first)) {
    // A job id never holds a separator: this is a CSV header, and job_id is not among its columns.
    throw new ValidationError(
      'VALIDATION_BAD_REQUEST',
      `the CSV has no job_id column (its header: ${first.trim()})`,
      [],
    );
  }
  const candidates = first !== undefined && CSV_HEADER.test(first) ? readCsv(body) : readLines(lines);
  return validateExpectedJobs(candidates, defaultKind);
}

/** Two or more separated fields, at least one of them a name (letters first), as a header has. */
function looksLikeCsvHeader(line: string): boolean {
  const fields = line.split(/[,;\t]/);
  return fields.length > 1 && fields.some((field) => /^\s*"?[A-Za-z_][\w .-]*"?\s*$/.test(field));
}

function readLines(lines: readonly string[]): ExpectedJobCandidate[] {
  const candidates: ExpectedJobCandidate[] = [];
  lines.forEach((line, index) => {
    const id = line.trim();
    if (id === '' || id.startsWith('#')) return;
    candidates.push({ job_id: id, kind: undefined, where: `line ${index + 1}` });
  });
  return candidates;
}

function readCsv(body: string): ExpectedJobCandidate[] {
  let records: CsvRecord[];
  try {
    records = parse(body, {
      delimiter: [',', ';', '\t'],
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    }) as unknown as CsvRecord[];
  } catch (error) {
    throw new ValidationError(
      'VALIDATION_BAD_REQUEST',
      `the CSV cannot be read: ${(error as Error).message}`,
      [],
      {
        cause: error,
      },
    );
  }
  const [header, ...rows] = records;
  if (header === undefined) return [];
  const names = header.record.map((name) => name.trim().toLowerCase());
  const idColumn = names.indexOf('job_id');
  const kindColumn = names.indexOf('kind');
  return rows.map(({ record, info }) => ({
    job_id: (record[idColumn] ?? '').trim(),
    kind: kindColumn === -1 ? undefined : (record[kindColumn] ?? '').trim() || undefined,
    // info.lines is the line the record ends on; a quoted field may span lines, so it is the best we have.
    where: `line ${info.lines}`,
  }));
}
