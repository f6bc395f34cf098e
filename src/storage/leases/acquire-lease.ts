/**
 * A named lease in the leases table, so that one reconcile run at a time works across processes and
 * replicas. Every step is one autocommit statement (no session state, no advisory lock), so it works on
 * SQLite, on Postgres, and behind a transaction-pooling proxy such as PgBouncer.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

/** The lease reconcile runs under. */
export const RECONCILE_LEASE_NAME = 'reconcile';
/** How long a lease lasts unless renewed; a crashed holder blocks others at most this long. */
export const DEFAULT_LEASE_TTL_MS = 60_000;

/** The outcome of {@link acquireLease}. */
export type LeaseAcquisition =
  | { readonly acquired: true; readonly holder: string; readonly expiresAt: string }
  | { readonly acquired: false; readonly holder: string; readonly expiresAt: string };

/** A lease holder id: `hostname:pid:random`, unique per run, readable by an operator. */
export function createLeaseHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new TypeError('ttlMs must be a positive integer');
}

/**
 * Takes the lease `name` for `holder` until now + ttlMs, when it is free, expired, or already ours.
 * One INSERT … ON CONFLICT DO UPDATE … WHERE: two contenders cannot both win, whatever the timing.
 * When someone else holds it, says who and until when.
 */
export async function acquireLease(
  db: Kysely<Database>,
  options: { name: string; holder: string; ttlMs: number; nowMs: number },
): Promise<LeaseAcquisition> {
  assertTtl(options.ttlMs);
  const now = iso(options.nowMs);
  const expiresAt = iso(options.nowMs + options.ttlMs);
  const result = await db
    .insertInto('leases')
    .values({ name: options.name, holder: options.holder, acquired_at: now, expires_at: expiresAt })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet((eb) => ({
          holder: eb.ref('excluded.holder'),
          acquired_at: eb.ref('excluded.acquired_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        // ISO 8601 UTC strings of one length sort as the instants they name, on both dialects.
        .where((eb) => eb.or([eb('leases.expires_at', '<', now), eb('leases.holder', '=', options.holder)])),
    )
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) {
    return { acquired: true, holder: options.holder, expiresAt };
  }
  const current = await readLease(db, options.name);
  // Released between our statements: report it as held by nobody in particular; the caller may retry.
  return { acquired: false, holder: current?.holder ?? 'unknown', expiresAt: current?.expires_at ?? now };
}

/** Extends our lease to now + ttlMs; false when it is no longer ours (it expired and someone took it). */
export async function renewLease(
  db: Kysely<Database>,
  options: { name: string; holder: string; ttlMs: number; nowMs: number },
): Promise<boolean> {
  assertTtl(options.ttlMs);
  const result = await db
    .updateTable('leases')
    .set({ expires_at: iso(options.nowMs + options.ttlMs) })
    .where('name', '=', options.name)
    .where('holder', '=', options.holder)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives the lease up if it is still ours. */
export async function releaseLease(
  db: Kysely<Database>,
  options: { name: string; holder: string },
): Promise<void> {
  await db
    .deleteFrom('leases')
    .where('name', '=', options.name)
    .where('holder', '=', options.holder)
    .execute();
}

/** The lease row, if any (it may be expired). */
export async function readLease(
  db: Kysely<Database>,
  name: string,
): Promise<{ holder: string; acquired_at: string; expires_at: string } | undefined> {
  return db
    .selectFrom('leases')
    .select(['holder', 'acquired_at', 'expires_at'])
    .where('name', '=', name)
    .executeTakeFirst();
}
