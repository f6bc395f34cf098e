/**
 * `serve --watches FILE` (HOOKSYNC_WATCHES): each watch's loop (watches/start-watches.ts: cycles spread over
 * the period, one replica per watch under a lease), launching through serve's client so that the account's
 * rate is shared with reconcile; and the watches' metrics, read from the database on each scrape, whether
 * or not this replica runs a watch. On close no check starts; those in flight finish and are recorded.
 */
import { joinUrl } from '../../config/load-config.js';
import { SYSTEM_CLOCK } from '../../watches/watch-clock.js';
import { registerWatchMetrics } from '../../watches/watch-metrics.js';
import { NOTHING_TO_CLOSE, type ServePart } from './serve-part.js';

/** Starts the watches of `options.watches` (the config check made sure of a client when there are any). */
export const startWatchesPart: ServePart = async (context) => {
  const { options, client, database, store, logger, metrics, config } = context;
  registerWatchMetrics(metrics.registry, database.db);
  const watches = options.watches ?? [];
  if (watches.length === 0 || client === undefined) return NOTHING_TO_CLOSE;
  // Loaded only when there are watches to run (issue 29: idle serve does not hold code it never runs).
  const [{ createLauncher }, { startWatches }] = await Promise.all([
    import('../../launch/create-launcher.js'),
    import('../../watches/start-watches.js'),
  ]);
  const running = startWatches({
    watches,
    db: database.db,
    // Each check is stored like any launch (ledger, job store), through serve's paced client.
    launcher: createLauncher({ client, store, db: database.db, logger: logger.child({}, { level: 'warn' }) }),
    logger,
    clock: options.watchClock ?? SYSTEM_CLOCK,
    webhookUrl: config.publicUrl === undefined ? undefined : joinUrl(config.publicUrl, '/webhooks'),
    telemetry: options.telemetry,
    answers: context.answers,
  });
  return running;
};
