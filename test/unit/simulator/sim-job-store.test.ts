import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimJobStore } from '../../../src/simulator/sim-job-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-jobstore-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const job = (id: string, status: 'RUNNING' | 'SUCCEEDED', text: string) =>
  ({ job_id: id, kind: 'job_change', status, text }) as const;

describe('SimJobStore', () => {
  it('keeps jobs in memory in launch order, a later version replacing an earlier one', () => {
    const store = new SimJobStore();
    store.put(job('a', 'RUNNING', '{"status":"RUNNING"}'));
    store.put(job('b', 'SUCCEEDED', '{}'));
    store.put(job('a', 'SUCCEEDED', '{"status":"SUCCEEDED"}'));
    expect(store.list()).toEqual([
      { job_id: 'a', kind: 'job_change', status: 'SUCCEEDED' },
      { job_id: 'b', kind: 'job_change', status: 'SUCCEEDED' },
    ]);
    expect(store.get('a')?.text).toBe('{"status":"SUCCEEDED"}');
  });

  it('reads its log back, keeping texts exactly and skipping a torn last line', () => {
    const file = join(dir, 'jobs.jsonl');
    const text = '{"status":"SUCCEEDED","n":12345678901234567890,"s":"é\\u2028"}';
    const store = new SimJobStore({ file });
    store.put(job('a', 'SUCCEEDED', text));
    store.put(job('b', 'RUNNING', '{"status":"RUNNING"}'), '{"status":"SUCCEEDED"}');
    store.put(job('c', 'RUNNING', '{"status":"RUNNING"}'), '{"status":"SUCCEEDED","c":1}');
    store.put(job('c', 'SUCCEEDED', '{"status":"SUCCEEDED","c":2}'));
    appendFileSync(file, '{"job_id":"d","kind":"job_ch');
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const reread = new SimJobStore({ file, logger });
    expect(reread.get('a')?.text).toBe(text);
    expect(reread.get('d')).toBeUndefined();
    expect(lines.join('')).toContain('unreadable job log line');
    // b was still running: its finished text is handed back once; c finished before the restart.
    expect(reread.takeUnfinished()).toEqual([
      { job: job('b', 'RUNNING', '{"status":"RUNNING"}'), finalText: '{"status":"SUCCEEDED"}' },
    ]);
    expect(reread.takeUnfinished()).toEqual([]);
    expect(reread.get('c')?.text).toBe('{"status":"SUCCEEDED","c":2}');
    reread.clear();
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(new SimJobStore({ file }).list()).toEqual([]);
  });
});
