import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/errors.js';
import { parseJobIdList } from '../../../../src/storage/ledger/parse-job-id-list.js';

const A = '0b9c5f7e-1d2a-4c3b-8e4f-5a6b7c8d9e0f';
const B = '1c0d6e8f-2e3b-4d4c-9f5a-6b7c8d9e0f1a';

function failure(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseJobIdList: one id a line', () => {
  it('reads ids, skipping blank lines and # comments, with CRLF and a BOM', () => {
    const text = `\uFEFF# exported from the CRM\r\n${A}\r\n\r\n  ${B}  \r\n`;
    expect(parseJobIdList(text, 'job_change')).toEqual([
      { job_id: A, kind: 'job_change' },
      { job_id: B, kind: 'job_change' },
    ]);
  });

  it('lower-cases ids and keeps the first of duplicates', () => {
    expect(parseJobIdList(`${A.toUpperCase()}\n${A}\n`, 'search_contact')).toEqual([
      { job_id: A, kind: 'search_contact' },
    ]);
  });

  it('names every bad id with its line, and returns nothing', () => {
    const error = failure(() => parseJobIdList(`${A}\nnot-a-uuid\n${B}\n${A}x\n`, 'job_change'));
    expect(error.code).toBe('VALIDATION_BAD_JOB_ID');
    expect(error.issues).toEqual(['line 2: "not-a-uuid" is not a UUID', `line 4: "${A}x" is not a UUID`]);
    expect(error.message).toContain('nothing recorded');
    expect(error.message).toContain('line 2: "not-a-uuid"');
  });

  it('needs a kind when the list gives none', () => {
    const error = failure(() => parseJobIdList(`${A}\n`));
    expect(error.code).toBe('VALIDATION_BAD_REQUEST');
    expect(error.issues[0]).toMatch(/^line 1: no kind given/);
  });

  it('refuses an empty list', () => {
    expect(failure(() => parseJobIdList('\n# nothing\n', 'job_change')).message).toBe('no job ids given');
  });

  it('accepts any list of UUIDs, and fails naming the line of one bad id put anywhere in it', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc
          .string({ minLength: 1, maxLength: 12 })
          .filter((s) => !/[\r\n#"]/.test(s) && s.trim() !== '' && !/^[\s\da-f-]+$/i.test(s)),
        (ids, at, bad) => {
          const parsed = parseJobIdList(ids.join('\n'), 'job_change');
          expect(parsed.map((job) => job.job_id)).toEqual(ids.map((id) => id.toLowerCase()));
          // On the first line, a bad id with a separator reads as a CSV header (tested below).
          const index = /[,;\t]/.test(bad) ? 1 + (at % ids.length) : at % (ids.length + 1);
          const lines = [...ids.slice(0, index), bad, ...ids.slice(index)];
          const error = failure(() => parseJobIdList(lines.join('\n'), 'job_change'));
          expect(error.issues).toEqual([`line ${index + 1}: "${bad.trim()}" is not a UUID`]);
        },
      ),
    );
  });
});

describe('parseJobIdList: CSV with a job_id column', () => {
  it('reads the job_id column among others, quoted fields included', () => {
    const text = `name,job_id,notes\n"Doe, Jane",${A},"said ""hi""\nthen left"\nBob,"${B}",\n`;
    expect(parseJobIdList(text, 'job_change')).toEqual([
      { job_id: A, kind: 'job_change' },
      { job_id: B, kind: 'job_change' },
    ]);
  });

  it('takes each row kind from a kind column, --kind filling the gaps', () => {
    const text = `job_id;kind\n${A};search_contact\n${B};\n`;
    expect(parseJobIdList(text, 'job_change')).toEqual([
      { job_id: A, kind: 'search_contact' },
      { job_id: B, kind: 'job_change' },
    ]);
  });

  it('names a bad id by its line and a bad kind by its value', () => {
    const text = `job_id,kind\n${A},job_change\noops,job_change\n${B},company_search\n`;
    const error = failure(() => parseJobIdList(text));
    expect(error.code).toBe('VALIDATION_BAD_JOB_ID');
    expect(error.issues).toEqual([
      'line 3: "oops" is not a UUID',
      'line 4: kind "company_search" is not one of job_change, search_contact, company_reveal',
    ]);
  });

  it('handles a tab-separated file', () => {
    expect(parseJobIdList(`job_id\tx\n${A}\t1\n`, 'company_reveal')).toEqual([
      { job_id: A, kind: 'company_reveal' },
    ]);
  });

  it('reads many rows', () => {
    const ids = Array.from({ length: 2000 }, () => randomUUID());
    const parsed = parseJobIdList(`job_id\n${ids.join('\n')}\n`, 'job_change');
    expect(parsed).toHaveLength(2000);
  });
});

describe('parseJobIdList: a CSV without a job_id column', () => {
  it('names the missing column and the header it read, instead of calling each line a bad id', () => {
    const text = 'id,kind\n6f1c5a3e-8a8e-4a36-9d51-3c1f0a7b2d10,job_change\n';
    const error = failure(() => parseJobIdList(text));
    expect(error.message).toBe('the CSV has no job_id column (its header: id,kind)');
    expect(error.issues).toEqual([]);
  });
});
