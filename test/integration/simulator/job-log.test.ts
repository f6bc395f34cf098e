/**
 * --db: jobs survive a restart, byte for byte; a job still RUNNING at shutdown is finished on restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../../src/simulator/create-simulator.js';
import { callSim, jobIdOf } from './helpers/sim-http.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-sim-db-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the job log', () => {
  it('keeps jobs across restarts', async () => {
    const dbFile = join(dir, 'jobs.jsonl');
    const first = await createSimulator({ dbFile, apiKey: 'k', asyncMs: 60_000, companyCount: 30 });
    const search = await callSim(first.url, 'POST', '/v1/search/contact', {
      key: 'k',
      body: { domain: 'acme.com', page_size: 2 },
    });
    expect(search.json).toMatchObject({ status: 'RUNNING' });
    const reveal = await callSim(first.url, 'POST', '/v1/company-reveal', {
      key: 'k',
      body: { ip: '23.45.67.89' },
    });
    await first.close();

    const second = await createSimulator({ dbFile, apiKey: 'k', companyCount: 30 });
    try {
      const searchAgain = await callSim(second.url, 'GET', `/v1/search/contact?job_id=${jobIdOf(search)}`, {
        key: 'k',
      });
      expect(searchAgain.status).toBe(200);
      const finished = searchAgain.json as {
        status: string;
        stop_date: string;
        input: unknown;
        output: { persons: unknown[] };
      };
      expect(finished.status).toBe('SUCCEEDED');
      expect(finished.input).toEqual((search.json as { input: unknown }).input);
      expect(finished.output.persons).toHaveLength(2);
      expect(second.jobText(jobIdOf(reveal))).toBe(reveal.text);
      expect(second.jobs().map((j) => j.job_id)).toEqual([jobIdOf(search), jobIdOf(reveal)]);
    } finally {
      await second.close();
    }
  });
});
