/**
 * `hooksync destinations replay <name>`: queues events again (failed ones, or those selected); with
 * `--dry-run`, on a destination that can plan (a CRM), reads only and prints what each record would become.
 */
import type { Command } from 'commander';
import { isJobId } from '../../../contract/job-id.js';
import type { ReplaySelection } from '../../../destinations/destination-admin.js';
import { type CliContext, CliError, EXIT_USAGE, writeLine } from '../../context.js';
import { addJsonOption } from '../../options.js';
import { printDryRun } from './print-dry-run.js';
import { CRM_COMMAND_TIMEOUT_MS } from './setup.js';
import {
  addCommonOptions,
  assertKnown,
  type CommonFlags,
  createForCommand,
  needConfigured,
  withDestinations,
} from './with-destinations.js';

interface ReplayFlags extends CommonFlags {
  failed?: boolean;
  since?: string;
  job?: string[];
  dryRun?: boolean;
  json?: boolean;
}

function selectionOf(flags: ReplayFlags): ReplaySelection {
  if (flags.failed !== true && flags.since === undefined && flags.job === undefined) {
    throw new CliError('say what to replay: --failed, --since <iso> or --job <job_id...>', EXIT_USAGE);
  }
  let since: string | undefined;
  if (flags.since !== undefined) {
    const ms = Date.parse(flags.since);
    if (Number.isNaN(ms))
      throw new CliError(`--since must be an ISO 8601 date-time (got "${flags.since}")`, EXIT_USAGE);
    since = new Date(ms).toISOString();
  }
  for (const jobId of flags.job ?? []) {
    if (!isJobId(jobId)) throw new CliError(`--job must be a job_id (a UUID), got "${jobId}"`, EXIT_USAGE);
  }
  return {
    ...(flags.failed === true ? { failed: true } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(flags.job !== undefined ? { jobIds: flags.job } : {}),
  };
}

/** An alert destination's dry run: the messages it would post, printed; false for other types. */
async function previewAlerts(
  ctx: CliContext,
  name: string,
  flags: ReplayFlags,
  selection: ReplaySelection,
): Promise<boolean> {
  const { previewReplay } = await import('../../../destinations/alerts/preview-replay.js');
  const lines = await withDestinations(ctx, flags, async (database, all) => {
    const configured = needConfigured(all, name);
    const destination = await createForCommand(configured, database);
    if (destination.kind !== 'outbox' || destination.preview === undefined) return undefined;
    return previewReplay({
      database,
      destination,
      name,
      selection,
      signal: AbortSignal.timeout(CRM_COMMAND_TIMEOUT_MS),
    });
  });
  if (lines === undefined) return false;
  if (flags.json === true) writeLine(ctx.stdout, JSON.stringify({ destination: name, messages: lines }));
  else {
    writeLine(ctx.stdout, `${name}: the replay would post ${lines.length} message(s)`);
    for (const line of lines) writeLine(ctx.stdout, `  ${line}`);
  }
  return true;
}

/** Registers `replay` under `destinations`. */
export function registerReplayCommand(destinations: Command, ctx: CliContext): void {
  const replay = destinations
    .command('replay')
    .description(
      'queue events of a destination again (they count as pending): failed ones, or those selected',
    )
    .argument('<name>', 'the destination')
    .option('--failed', 'every failed event (with --since or --job: those of them)')
    .option('--since <iso>', 'events written at or after this instant (failed and delivered ones)')
    .option('--job <job_id...>', 'events of these jobs (failed and delivered ones)')
    .option(
      '--dry-run',
      'a CRM destination: read only, print what each record would become (pending events included); a slack or email destination: print the messages it would post',
    );
  addJsonOption(replay);
  addCommonOptions(replay);
  replay.action(async (name: string, flags: ReplayFlags) => {
    const selection = selectionOf(flags);
    if (flags.dryRun === true) {
      const previewed = await previewAlerts(ctx, name, flags, selection);
      if (previewed) return;
      const { canDryRun } = await import('../../../destinations/crm/crm-destination.js');
      const { dryRunReplay } = await import('../../../destinations/crm/dry-run-replay.js');
      const report = await withDestinations(ctx, flags, async (database, all) => {
        const configured = needConfigured(all, name);
        const destination = await createForCommand(configured, database);
        if (!canDryRun(destination))
          throw new CliError(`${name} is a ${configured.type} destination: it has no dry run`);
        return dryRunReplay({
          database,
          destination,
          name,
          selection: { ...selection, pending: true },
          signal: AbortSignal.timeout(CRM_COMMAND_TIMEOUT_MS),
        });
      });
      printDryRun(ctx, name, report, flags.json === true);
      return;
    }
    const { replayEvents, storedWithoutEvents } = await import('../../../destinations/destination-admin.js');
    const { count, stored } = await withDestinations(ctx, flags, async (database) => {
      await assertKnown(database, name);
      const count = await replayEvents(database.db, name, selection, new Date().toISOString());
      const stored =
        count === 0 && selection.since !== undefined
          ? await storedWithoutEvents(database.db, name, selection.since)
          : undefined;
      return { count, stored };
    });
    if (stored === undefined) {
      writeLine(ctx.stdout, `${count} event(s) of ${name} queued again`);
      return;
    }
    // A destination added later has no events to replay: backfill is what queues the stored jobs for it.
    writeLine(
      ctx.stdout,
      `0 event(s) of ${name} queued again: ${name} has no events since ${selection.since} (it was not configured when those ${stored} job(s) arrived); queue them with: hooksync destinations backfill ${name} --since ${selection.since}`,
    );
  });
}
