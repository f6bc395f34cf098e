/**
 * Taking a lease for the length of a run: wait for it if asked (logged once per holder waited for), then
 * renew it in the background every third of its lifetime, and say so when it is lost (it expired while we
 * stalled and another run took it).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../database.js';
import { acquireLease, releaseLease, renewLease } from './acquire-lease.js';

/** How often a waiting run asks for the lease again. */
export const DEFAULT_LEASE_POLL_MS = 2000;

/** Which lease, for whom, for how long. */
export interface LeaseSpec {
  readonly name: string;
  readonly holder: string;
  readonly ttlMs: number;
}

/** What {@link holdLease} needs. */
export interface HoldLeaseOptions {
  readonly now: () => number;
  readonly logger: Logger;
  /** Wait while another holder has it (else give up at once). */
  readonly wait: boolean;
  readonly pollMs?: number | undefined;
  /** Stops waiting. */
  readonly signal?: AbortSignal | undefined;
}

/** A lease being held: `lost` aborts if it is taken away; `release()` stops renewing and gives it up. */
export interface HeldLease {
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

/** Why no lease was taken. */
export type LeaseRefusal =
  | { readonly reason: 'held'; readonly holder: string; readonly expiresAt: string }
  | { readonly reason: 'aborted' };

/** Takes the lease (waiting for it when asked) and keeps it renewed until released. */
export async function holdLease(
  db: Kysely<Database>,
  lease: LeaseSpec,
  options: HoldLeaseOptions,
): Promise<HeldLease | LeaseRefusal> {
  const { now, logger } = options;
  // A standby waits as long as the active replica lives: it says so once per holder, not at every poll.
  let waitingFor: string | undefined;
  for (;;) {
    const taken = await acquireLease(db, { ...lease, nowMs: now() });
    if (taken.acquired) break;
    if (!options.wait) return { reason: 'held', holder: taken.holder, expiresAt: taken.expiresAt };
    if (taken.holder !== waitingFor) {
      waitingFor = taken.holder;
      logger.info({ holder: taken.holder, expires_at: taken.expiresAt }, 'waiting for the lease');
    }
    try {
      await delay(options.pollMs ?? DEFAULT_LEASE_POLL_MS, undefined, { signal: options.signal });
    } catch {
      return { reason: 'aborted' };
    }
  }
  const lost = new AbortController();
  const renew = async (): Promise<void> => {
    try {
      if (await renewLease(db, { ...lease, nowMs: now() })) return;
      logger.error({ holder: lease.holder }, 'the lease was taken by another run; stopping');
      lost.abort(new Error('the lease was lost to another run'));
    } catch (error) {
      // A database blip: the lease stays ours until it expires, and the next tick tries again.
      logger.warn({ err: error }, 'could not renew the lease; will retry');
    }
  };
  const timer = setInterval(() => void renew(), Math.max(1, Math.floor(lease.ttlMs / 3)));
  timer.unref();
  return {
    lost: lost.signal,
    async release() {
      clearInterval(timer);
      await releaseLease(db, lease).catch((error: unknown) =>
        logger.warn({ err: error }, 'could not release the lease'),
      );
    },
  };
}
