/**
 * What the destination benchmarks share: company reveals stored through the job store (each writing its
 * outbox events in its own transaction), and the count of pending events.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

const DIST = new URL('../../dist/', import.meta.url);

/**
 * Stores `count` company reveals (new job_ids, 500 at a time); with `distinctDomains` each names a company
 * of its own (`acme-<i>.com`); `dist`: the build to store with (default this tree's dist/). Returns the
 * milliseconds it took.
 */
export async function storeReveals(database, count, { distinctDomains = false, dist = DIST } = {}) {
  const { createJobStore } = await import(new URL('storage/job-store/job-store.js', dist).href);
  const template = readFileSync(
    new URL('../../test/fixtures/envelopes/company-reveal.json', import.meta.url),
    'utf8',
  );
  const original = JSON.parse(template).input.task.job_id;
  const store = createJobStore({ database });
  const started = performance.now();
  try {
    for (let start = 0; start < count; start += 500) {
      const batch = [];
      for (let i = start; i < Math.min(count, start + 500); i += 1) {
        let text = template.split(original).join(randomUUID());
        if (distinctDomains) text = text.replaceAll('acme-robotics.com', `acme-${i}.com`);
        batch.push(store.store({ envelopeText: text, source: 'webhook' }));
      }
      await Promise.all(batch);
    }
  } finally {
    await store.close();
  }
  return performance.now() - started;
}

/** Events not yet delivered (or failed). */
export async function pendingEvents(database) {
  const row = await database.db
    .selectFrom('outbox_events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
