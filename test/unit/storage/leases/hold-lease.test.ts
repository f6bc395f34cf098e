/**
 * A standby waiting for a lease says so once per holder it waits for, not at every poll (a replica on
 * standby for hours wrote a line every 2 s), and takes the lease once it is free.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acquireLease, releaseLease } from '../../../../src/storage/leases/acquire-lease.js';
import { holdLease } from '../../../../src/storage/leases/hold-lease.js';
import { until } from '../../../helpers/until.js';
import { createTempSqlite, type TempDatabase } from '../../reconcile/helpers/temp-database.js';

let temp: TempDatabase;
beforeAll(async () => {
  temp = await createTempSqlite();
});
afterAll(async () => {
  await temp.cleanup();
});

it('logs the wait once per holder, however many polls it takes', async () => {
  const db = temp.database.db;
  const lines: string[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const name = 'standby-lease';
  const ttlMs = 3_600_000;
  await acquireLease(db, { name, holder: 'a', ttlMs, nowMs: Date.now() });
  let polls = 0;
  const waiting = holdLease(
    db,
    { name, holder: 'standby', ttlMs },
    {
      now: () => {
        polls += 1;
        return Date.now();
      },
      logger,
      wait: true,
      pollMs: 1,
    },
  );
  await until(() => polls >= 20, { message: 'the standby polls 20 times' });
  // Another holder takes over: one more line, naming it.
  await releaseLease(db, { name, holder: 'a' });
  await acquireLease(db, { name, holder: 'b', ttlMs, nowMs: Date.now() });
  const seen = polls;
  await until(() => polls >= seen + 20, { message: 'the standby polls 20 more times' });
  await releaseLease(db, { name, holder: 'b' });
  const held = await waiting;
  expect('lost' in held).toBe(true);
  if ('lost' in held) await held.release();
  const waits = lines.filter((line) => line.includes('waiting for the lease'));
  expect(waits).toHaveLength(2);
  expect(waits[0]).toContain('"holder":"a"');
  expect(waits[1]).toContain('"holder":"b"');
});
