/**
 * Issue 43 part 4, a watched file's hostile rows (in-process, against the simulator): one contact written 41
 * times is one paid check, the 40 others folded and reported; a JSON line of 8 MiB is a row problem, read
 * without holding it, and the rows around it are checked. SQLite, and Postgres where it runs.
 */
import { describe, expect, it } from 'vitest';
import type { WatchDefinition } from '../../../src/watches/load-watches.js';
import { type CycleSummary, runCycle } from '../../../src/watches/run-cycle.js';
import { dueCycle } from '../../../src/watches/start-watches.js';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { championsWatch, contactsCsv } from '../../helpers/watches-env.js';
import { createWatchHarness, type WatchHarness } from './watch-harness.js';

async function cycle(h: WatchHarness, watch: WatchDefinition): Promise<CycleSummary> {
  const next = await dueCycle(h.database.db, watch, h.clock.now());
  if ('waitMs' in next) throw new Error('no cycle due');
  return runCycle(watch, next.cycle, h.deps(), { spread: false, signal: new AbortController().signal });
}

async function launched(h: WatchHarness): Promise<number> {
  const row = await h.database.db
    .selectFrom('expected_jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !TEST_DATABASE_URL)(
    dialect === 'postgres'
      ? pgSuiteName('a hostile watched file on postgres')
      : 'a hostile watched file on sqlite',
    () => {
      it('checks a contact written 41 times once, and says how many rows it folded', async () => {
        const h = await createWatchHarness(dialect);
        try {
          const rows = Array.from({ length: 41 }, () => ['ann.lee@acme.com', '003A0'] as const);
          await h.write('contacts.csv', contactsCsv([...rows, ['bo.chen@acme.com', '003A1']]));
          h.sim.setJobChange({ professional_email: 'ann.lee@acme.com' }, { job_change_status: 'no_change' });
          h.sim.setJobChange({ professional_email: 'bo.chen@acme.com' }, { job_change_status: 'no_change' });
          const summary = await cycle(h, await h.watch(championsWatch({})));
          expect(await launched(h)).toBe(2);
          expect(summary).toMatchObject({ checked: 2, duplicates: 40, stopped: null, finished: true });
          expect(summary.usd).toBeCloseTo(0.04, 6);
        } finally {
          await h.close();
        }
      });

      it('reads past a JSON line of 8 MiB as a row problem, checking the rows around it', async () => {
        const h = await createWatchHarness(dialect);
        try {
          const huge = JSON.stringify({ professional_email: `${'a'.repeat(8 * 1024 * 1024)}@acme.com` });
          await h.write(
            'contacts.jsonl',
            [
              JSON.stringify({ professional_email: 'ann.lee@acme.com' }),
              huge,
              JSON.stringify({ professional_email: 'bo.chen@acme.com' }),
            ].join('\n'),
          );
          h.sim.setJobChange({ professional_email: 'ann.lee@acme.com' }, { job_change_status: 'no_change' });
          h.sim.setJobChange({ professional_email: 'bo.chen@acme.com' }, { job_change_status: 'no_change' });
          const watch = await h.watch({
            name: 'lines',
            launch: 'job-change',
            from: { file: 'contacts.jsonl' },
          });
          const summary = await cycle(h, watch);
          expect(summary).toMatchObject({ rows: 2, invalid: 1, checked: 2, stopped: null });
          expect(h.logs.join('')).toContain('line 2: line is longer than 1048576 bytes (not read)');
        } finally {
          await h.close();
        }
      });
    },
  );
}
