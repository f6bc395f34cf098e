/**
 * Progress of a bulk launch for the person waiting: on a terminal, one line redrawn on stderr (rows done of
 * total, launched, skipped, failed, USD, rate, ETA); elsewhere, a log line every few seconds.
 */
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { LaunchReport } from './launch-report.js';

/** Redraws on a terminal at most this often. */
const TTY_INTERVAL_MS = 200;
/** Logs without a terminal this often. */
export const DEFAULT_LOG_INTERVAL_MS = 5000;

/** Where progress goes. */
export interface ProgressReporterOptions {
  readonly stream: Writable;
  readonly interactive: boolean;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly logIntervalMs?: number;
}

/** Feeds on the run's progress callback; `end()` clears the terminal line. */
export interface ProgressReporter {
  update(report: LaunchReport, done: number, total: number): void;
  end(): void;
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The figures of one progress line. */
export function describeProgress(report: LaunchReport, done: number, total: number, elapsedMs: number) {
  const minutes = elapsedMs / 60_000;
  const perMinute = minutes > 0 ? done / minutes : 0;
  const etaSeconds = perMinute > 0 ? ((total - done) / perMinute) * 60 : Number.POSITIVE_INFINITY;
  return {
    done,
    total,
    launched: report.launched,
    skipped: report.skipped,
    failed: report.failed,
    usd: Math.round(report.usd * 100) / 100,
    per_minute: Math.round(perMinute * 10) / 10,
    eta: formatDuration(etaSeconds),
  };
}

/** A reporter for the CLI. */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const now = options.now ?? Date.now;
  const startedMs = now();
  let lastMs = 0;
  let drawn = false;
  return {
    update(report, done, total) {
      const t = now();
      const interval = options.interactive
        ? TTY_INTERVAL_MS
        : (options.logIntervalMs ?? DEFAULT_LOG_INTERVAL_MS);
      if (t - lastMs < interval && done < total) return;
      lastMs = t;
      const p = describeProgress(report, done, total, t - startedMs);
      if (options.interactive) {
        const line = `${p.done}/${p.total} rows · ${p.launched} launched · ${p.skipped} skipped · ${p.failed} failed · $${p.usd.toFixed(2)} · ${p.per_minute}/min · ETA ${p.eta}`;
        options.stream.write(`\r\x1b[2K${line}`);
        drawn = true;
      } else {
        options.logger.info(p, 'launch progress');
      }
    },
    end() {
      if (drawn) options.stream.write('\r\x1b[2K');
    },
  };
}
