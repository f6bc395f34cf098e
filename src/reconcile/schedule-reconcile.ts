/**
 * Runs reconcile on a cron schedule inside a long-lived process (`hooksync serve --reconcile-cron`).
 * croner's `protect` skips a tick while the previous run is still going; the lease keeps other
 * processes and replicas from running at the same time.
 */
import { Cron } from 'croner';
import { type Logger, pino } from 'pino';
import { ConfigError } from '../errors.js';
import type { ReconcileReport } from './reconcile-report.js';

/** Options of {@link scheduleReconcile}. */
export interface ScheduleReconcileOptions {
  /** A cron expression, e.g. `0 3 * * *` (03:00 every day). */
  cron: string;
  /** One reconcile run (for instance `() => runReconcile(deps, options)`). */
  run: () => Promise<ReconcileReport>;
  /** Default silent. */
  logger?: Logger;
  /** IANA time zone of the expression (default the process's). */
  timezone?: string;
}

/** A running schedule. */
export interface ReconcileSchedule {
  /** When the next run starts, if any. */
  nextRunAt(): Date | undefined;
  /** True while a run is going. */
  isRunning(): boolean;
  /** Stops scheduling (a run in progress finishes on its own). */
  stop(): void;
}

/** Starts the schedule; throws ConfigError for an invalid expression, naming it. */
export function scheduleReconcile(options: ScheduleReconcileOptions): ReconcileSchedule {
  if (typeof options.run !== 'function') throw new TypeError('scheduleReconcile needs a run function');
  const logger = options.logger ?? pino({ level: 'silent' });
  let job: Cron;
  try {
    job = new Cron(
      options.cron,
      {
        protect: (skipped) =>
          logger.warn({ started: skipped.currentRun() }, 'reconcile still running; tick skipped'),
        ...(options.timezone ? { timezone: options.timezone } : {}),
        catch: (error) => logger.error({ err: error }, 'scheduled reconcile run failed'),
      },
      async () => {
        const report = await options.run();
        logger.info(
          { status: report.status, recovered: report.recovered },
          'scheduled reconcile run finished',
        );
      },
    );
  } catch (error) {
    throw new ConfigError(
      `--reconcile-cron "${options.cron}" is not a valid cron expression: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return {
    nextRunAt: () => job.nextRun() ?? undefined,
    isRunning: () => job.isBusy(),
    stop: () => job.stop(),
  };
}
