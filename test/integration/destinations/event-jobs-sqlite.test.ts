/**
 * The jobs behind claimed events (outbox.ts loadEventJobs): with their envelopes' exact text for a
 * destination that sends them, without reading or decoding them for one that reads rows only (a CRM).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEventJobs } from '../../../src/destinations/outbox.js';
import {
  type ExportTestDatabase,
  openExportTestDatabase,
  readFixtureEnvelopes,
  storeEnvelopes,
} from '../export/export-database.js';

describe('loadEventJobs on SQLite', () => {
  let t: ExportTestDatabase;
  let texts: string[];
  beforeAll(async () => {
    t = await openExportTestDatabase('sqlite');
    texts = (await readFixtureEnvelopes()).map((envelope) => envelope.text).slice(0, 3);
    await storeEnvelopes(t.database, texts);
  });
  afterAll(async () => t?.dispose());

  it('carries each envelope exactly as stored, or none for a destination that reads rows only', async () => {
    const jobIds = texts.map(
      (text) => (JSON.parse(text) as { input: { task: { job_id: string } } }).input.task.job_id,
    );
    const withEnvelopes = await loadEventJobs(t.database.db, jobIds);
    const rowsOnly = await loadEventJobs(t.database.db, jobIds, { envelope: false });
    expect([...withEnvelopes.keys()].sort()).toEqual([...new Set(jobIds)].sort());
    for (const [index, jobId] of jobIds.entries()) {
      const job = withEnvelopes.get(jobId);
      expect(job?.envelope).toBe(texts[index]);
      const { envelope, ...rest } = job ?? { envelope: '' };
      expect(rowsOnly.get(jobId)).toEqual({ ...rest, envelope: '' });
    }
  });
});
