/**
 * A destination's rate shared by every process that works for it: serve's replicas on one Postgres, or a
 * `destinations replay` beside serve. Each call reserves the next free slot in the destination's row of
 * `destination_pace` and waits for it; slots are `perMs / requests` apart (rounded up to the millisecond),
 * so no window of `perMs`, rolling or not, holds more than `requests` calls across all of them: what
 * HubSpot's TEN_SECONDLY_ROLLING limit counts per account. A per-process window could not promise that:
 * two replicas would each send the whole rate.
 *
 * The reservation is a compare-and-set on the row's ISO time (read it, write the next slot only if it is
 * unchanged, else read again), the same on SQLite and Postgres. One reservation takes a block of slots
 * (up to {@link MAX_SLOTS_PER_RESERVATION}, no more than {@link MAX_RESERVED_AHEAD_MS} of the rate), which
 * this process hands out in order: one read and one write per block, not per call (issue 44). A slot
 * that passes unused is dropped, never sent late (it would bunch with the next); other processes wait at
 * most the block's span for slots this one reserved and did not use. It gives up the burst an idle
 * destination could have sent at once (the steady rate is the configured one). Replicas' clocks must
 * agree (NTP): a slot is a wall-clock time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { StorageError } from '../errors.js';
import type { Database } from '../storage/database.js';
import { whenUnlocked } from './when-unlocked.js';

/** Something a call waits on before it goes. */
export interface Pace {
  /** Resolves when the caller may send; rejects when `signal` aborts first. */
  wait(signal: AbortSignal): Promise<void>;
}

/** How many times a reservation is tried against other processes' reservations before it gives up. */
const MAX_CONFLICTS = 50;
/** The most slots one reservation takes: one round trip to the database per this many calls at most. */
export const MAX_SLOTS_PER_RESERVATION = 10;
/** The longest span of the rate one reservation takes: what other processes may wait for unused slots. */
export const MAX_RESERVED_AHEAD_MS = 1000;

/** The pace of `destination`'s calls, `rate.requests` per `rate.perMs` across every process. */
export function createSharedPace(
  db: Kysely<Database>,
  destination: string,
  rate: { readonly requests: number; readonly perMs: number },
  now: () => number,
): Pace {
  const spacingMs = Math.ceil(rate.perMs / rate.requests);
  const block = Math.max(
    1,
    Math.min(MAX_SLOTS_PER_RESERVATION, Math.floor(MAX_RESERVED_AHEAD_MS / spacingMs)),
  );
  /** Slots this process reserved and has not handed out, earliest first. */
  const held: number[] = [];
  let reserving: Promise<number> | undefined;

  /** The next slot: a held one not yet passed, else the first of a new block (its caller's). */
  async function take(): Promise<number> {
    for (;;) {
      const nowMs = now();
      while (held.length > 0 && held[0]! < nowMs) held.shift();
      const slot = held.shift();
      if (slot !== undefined) return slot;
      if (reserving !== undefined) {
        // Another call is reserving: its block's later slots are for the calls waiting with it.
        await reserving.catch(() => {});
        continue;
      }
      reserving = whenUnlocked(() => reserveCallSlot(db, destination, spacingMs, now, block)).finally(() => {
        reserving = undefined;
      });
      const first = await reserving;
      for (let i = 1; i < block; i += 1) held.push(first + i * spacingMs);
      return first;
    }
  }

  return {
    async wait(signal) {
      const slot = await take();
      const waitMs = slot - now();
      if (waitMs > 0) await sleep(waitMs, undefined, { signal });
    },
  };
}

/**
 * Reserves the next `count` free slots (default one), `spacingMs` apart, and returns the first (epoch ms):
 * the later of now and the row's time; the row moves `count` spacings on. Exported for its tests.
 */
export async function reserveCallSlot(
  db: Kysely<Database>,
  destination: string,
  spacingMs: number,
  now: () => number,
  count = 1,
): Promise<number> {
  for (let conflicts = 0; conflicts < MAX_CONFLICTS; conflicts += 1) {
    const row = await db
      .selectFrom('destination_pace')
      .select('next_at')
      .where('destination', '=', destination)
      .executeTakeFirst();
    const slot = Math.max(row === undefined ? 0 : Date.parse(row.next_at), now());
    const nextAt = new Date(slot + count * spacingMs).toISOString();
    const result =
      row === undefined
        ? await db
            .insertInto('destination_pace')
            .values({ destination, next_at: nextAt })
            .onConflict((oc) => oc.column('destination').doNothing())
            .executeTakeFirst()
        : await db
            .updateTable('destination_pace')
            .set({ next_at: nextAt })
            .where('destination', '=', destination)
            .where('next_at', '=', row.next_at)
            .executeTakeFirst();
    const changed =
      'numInsertedOrUpdatedRows' in result ? result.numInsertedOrUpdatedRows : result.numUpdatedRows;
    if (changed === 1n) return slot;
  }
  throw new StorageError(
    `destination ${destination}: no call slot after ${MAX_CONFLICTS} tries against other processes`,
    {
      transient: true,
    },
  );
}
