/**
 * Envelope texts for receiver tests: the contract's fixtures with a job_id of the test's choosing, the
 * text otherwise exactly as in the fixture file (so storage can be compared byte for byte).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type FixtureName =
  | 'company-reveal'
  | 'company-reveal-empty-company'
  | 'job-change-moved'
  | 'job-change-left'
  | 'job-change-no-change'
  | 'search-contact';

const cache = new Map<FixtureName, { text: string; jobId: string }>();

function fixture(name: FixtureName): { text: string; jobId: string } {
  let entry = cache.get(name);
  if (!entry) {
    const text = readFileSync(new URL(`../fixtures/envelopes/${name}.json`, import.meta.url), 'utf8');
    const jobId = (JSON.parse(text) as { input: { task: { job_id: string } } }).input.task.job_id;
    entry = { text, jobId };
    cache.set(name, entry);
  }
  return entry;
}

/** The fixture's text with its job_id replaced (every occurrence). */
export function envelopeText(
  name: FixtureName,
  jobId: string = randomUUID(),
): { text: string; jobId: string } {
  const { text, jobId: original } = fixture(name);
  return { text: text.split(original).join(jobId), jobId };
}
