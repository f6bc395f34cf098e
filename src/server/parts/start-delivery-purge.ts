/** serve's purge of replay-guard records whose tokens can no longer verify. */
import { DEFAULT_TOLERANCE_SECONDS } from '../../contract/limits.js';
import { purgeExpiredDeliveries } from '../../storage/job-queries.js';
import type { ServePart } from './serve-part.js';

/** How often delivery records of expired tokens are deleted. */
export const DELIVERY_PURGE_INTERVAL_MS = 10 * 60_000;

/** Deletes expired delivery records every {@link DELIVERY_PURGE_INTERVAL_MS}. */
export const startDeliveryPurge: ServePart = async ({ database, options, logger, now }) => {
  // A jti only guards replays while its token can still verify: past exp + tolerance it is dead weight.
  const toleranceMs = (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS) * 1000;
  const timer = setInterval(() => {
    purgeExpiredDeliveries(database.db, now() - toleranceMs).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not purge expired delivery records'),
    );
  }, DELIVERY_PURGE_INTERVAL_MS);
  timer.unref();
  return { close: () => clearInterval(timer) };
};
