/**
 * `hooksync destinations backfill <name> --since <duration|iso>`: queues, for a destination configured
 * after they arrived, the stored jobs (and watch changes) of the window, each once (docs/destinations.md,
 * "A destination added later").
 */
import type { Command } from 'commander';
import { parseDuration } from '../../../config/parse-duration.js';
import type { BackfillReport } from '../../../destinations/backfill-events.js';
import { type CliContext, CliError, EXIT_USAGE, writeLine } from '../../context.js';
import { addJsonOption } from '../../options.js';
import { addCommonOptions, assertKnown, type CommonFlags, withDestinations } from './with-destinations.js';

interface BackfillFlags extends CommonFlags {
  since?: string;
  kind?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** Progress lines on stderr at most this often (a long run says how far it is). */
const PROGRESS_EVERY_MS = 2000;

/** The instant `--since` names: a duration back from `nowMs` (`7d`, `36h`) or an ISO 8601 date-time. */
export function parseSince(text: string | undefined, nowMs: number): string {
  if (text === undefined)
    throw new CliError('--since is required: a duration (7d, 36h) or an ISO 8601 date-time', EXIT_USAGE);
  if (/^\d/.test(text) && !/[-T:]/.test(text)) {
    try {
      return new Date(nowMs - parseDuration(text)).toISOString();
    } catch {
      // Not a duration: read as a date below, whose error names both forms.
    }
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new CliError(
      `--since must be a duration (7d, 36h) or an ISO 8601 date-time (got "${text}")`,
      EXIT_USAGE,
    );
  return new Date(ms).toISOString();
}

/** One line of a report: what was (or would be) queued of how many considered. */
export function describeBackfill(report: BackfillReport, sinceIso: string): string {
  const verb = report.dryRun ? 'would queue' : 'queued';
  const part = (counts: BackfillReport['jobs'], noun: string) =>
    `${counts.queued} of ${counts.considered} ${noun} (${counts.considered - counts.queued} already queued or delivered)`;
  return `${report.destination}: ${verb} ${part(report.jobs, 'stored job(s)')} and ${part(report.changes, 'watch change(s)')} since ${sinceIso}`;
}

/** Registers `backfill` under `destinations`. */
export function registerBackfillCommand(destinations: Command, ctx: CliContext): void {
  const backfill = destinations
    .command('backfill')
    .description(
      'queue the stored jobs (and watch changes) of a window for a destination configured after they arrived, each once',
    )
    .argument('<name>', 'the destination')
    .option(
      '--since <duration|iso>',
      'the window: jobs stored since this long ago (7d, 36h) or this ISO 8601 instant',
    )
    .option(
      '--kind <kind>',
      'only this kind (a job kind, or watch_change); default every kind the destination takes',
    )
    .option('--dry-run', 'count what would be queued; queue nothing');
  addJsonOption(backfill);
  addCommonOptions(backfill);
  backfill.action(async (name: string, flags: BackfillFlags) => {
    const sinceIso = parseSince(flags.since, Date.now());
    const { backfillEvents } = await import('../../../destinations/backfill-events.js');
    let lastProgressMs = Date.now();
    const report = await withDestinations(ctx, flags, async (database) => {
      await assertKnown(database, name);
      try {
        return await backfillEvents(database.db, {
          destination: name,
          sinceIso,
          kind: flags.kind,
          dryRun: flags.dryRun === true,
          nowIso: new Date().toISOString(),
          onProgress: (sofar) => {
            if (Date.now() - lastProgressMs < PROGRESS_EVERY_MS) return;
            lastProgressMs = Date.now();
            writeLine(
              ctx.stderr,
              `backfill ${name}: ${sofar.jobs.considered + sofar.changes.considered} considered, ${sofar.jobs.queued + sofar.changes.queued} queued so far`,
            );
          },
        });
      } catch (error) {
        if (error instanceof TypeError) throw new CliError(error.message, EXIT_USAGE);
        throw error;
      }
    });
    if (flags.json === true) {
      writeLine(ctx.stdout, JSON.stringify({ ...report, since: sinceIso }, null, 2));
      return;
    }
    writeLine(ctx.stdout, describeBackfill(report, sinceIso));
  });
}
