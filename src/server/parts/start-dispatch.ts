/**
 * serve's dispatcher (destinations/create-dispatcher.ts) on a connection of its own: the routing is
 * recorded before the receiver listens; on close it stops before the store and the database, and what it
 * has not delivered stays in the outbox.
 */
import { createDispatcher } from '../../destinations/create-dispatcher.js';
import { createDestinationMetrics } from '../../destinations/destination-metrics.js';
import { openDispatchDatabase } from '../../destinations/open-dispatch-database.js';
import type { ServePart } from './serve-part.js';

/** Starts the dispatcher over `options.destinations` (none: the routing is cleared). */
export const startDispatch: ServePart = async (context) => {
  const { config, options, database, logger, now, metrics } = context;
  const destinations = options.destinations ?? [];
  const dispatch = await openDispatchDatabase(config.databaseUrl, database);
  const closeDatabase = async () => {
    if (dispatch.owned) await dispatch.database.close();
  };
  try {
    const dispatcher = createDispatcher({
      receiving: context.receiving,
      ...(options.dispatchPollMs !== undefined ? { pollMs: options.dispatchPollMs } : {}),
      database: dispatch.database,
      destinations,
      logger,
      now,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      answers: context.answers,
      telemetry: options.telemetry,
      metrics: createDestinationMetrics(metrics.registry, {
        db: database.db,
        names: destinations.map((d) => d.name),
        now,
      }),
    });
    await dispatcher.sync();
    dispatcher.start();
    // A stored job's events are handed on at once, not at the next poll (issue 44).
    const unlisten = context.jobsStored.listen(() => dispatcher.wake());
    return {
      async close() {
        unlisten();
        await dispatcher.stop();
        await closeDatabase();
      },
    };
  } catch (error) {
    await closeDatabase();
    throw error;
  }
};
