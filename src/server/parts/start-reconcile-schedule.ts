/**
 * `serve --reconcile-cron`: reconcile on a schedule (reconcile/schedule-reconcile.ts; runs never overlap).
 * On close no new run starts, and the current one stops after its entry in flight (what is done stays done).
 */
import { NOTHING_TO_CLOSE, type ServePart } from './serve-part.js';

/** Schedules reconcile when `options.reconcileCron` is set (the config check made sure of a client). */
export const startReconcileSchedule: ServePart = async (context) => {
  const { options, client, database, store, logger, now } = context;
  const cron = options.reconcileCron;
  if (cron === undefined || client === undefined) return NOTHING_TO_CLOSE;
  // Loaded only with a schedule: reconcile and croner are code idle serve would otherwise hold (issue 29).
  const [{ runReconcile }, { scheduleReconcile }] = await Promise.all([
    import('../../reconcile/run-reconcile.js'),
    import('../../reconcile/schedule-reconcile.js'),
  ]);
  const controller = new AbortController();
  const runs = new Set<Promise<unknown>>();
  const schedule = scheduleReconcile({
    cron,
    logger,
    run: () => {
      // Its counters on /metrics are read from the recorded runs (server/reconcile-metrics.ts).
      const run = runReconcile(
        {
          db: database.db,
          client,
          store,
          logger,
          now,
          signal: controller.signal,
          telemetry: options.telemetry,
        },
        options.reconcileOlderThanMs === undefined ? {} : { olderThanMs: options.reconcileOlderThanMs },
      );
      const settled = run.catch(() => undefined).finally(() => runs.delete(settled));
      runs.add(settled);
      return run;
    },
  });
  logger.info({ cron, next: schedule.nextRunAt()?.toISOString() }, 'reconcile scheduled');
  return {
    async close() {
      schedule.stop();
      controller.abort();
      await Promise.all([...runs]);
    },
  };
};
