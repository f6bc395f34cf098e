/**
 * `hooksync watches list | run NAME | changes NAME`: what each watch of the watches file is doing, one
 * whole cycle now in the foreground, and the changes found (docs/watches.md).
 */
import type { Command } from 'commander';
import type { HooksyncConfig } from '../../config/load-config.js';
import { joinUrl } from '../../config/load-config.js';
import { parseDuration } from '../../config/parse-duration.js';
import type { ConfiguredDestination } from '../../destinations/load-destinations.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import type { WatchDefinition } from '../../watches/load-watches.js';
import { type CliContext, CliError, EXIT_FAILURE, EXIT_USAGE, writeLine } from '../context.js';
import { createLogger } from '../create-logger.js';
import { loadCliConfig, requireExistingDatabase } from '../load-cli-config.js';
import { addDatabaseOption, addJsonOption, addLogLevelOption, addServiceOptions } from '../options.js';
import { traceCommand } from '../start-cli-telemetry.js';
import { requireService } from './reveal.js';

interface WatchesFlags {
  watches?: string;
  destinations?: string;
  json?: boolean;
  dryRun?: boolean;
  since?: string;
  apiBaseUrl?: string;
  apiKey?: string;
  databaseUrl?: string;
  logLevel?: string;
}

function addWatchesFileOption(command: Command): Command {
  return command
    .option('--watches <file>', 'the watches file (env HOOKSYNC_WATCHES)')
    .option(
      '--destinations <file>',
      'the destinations file, which a CRM source (from.hubspot, from.salesforce, from.pipedrive) names (env HOOKSYNC_DESTINATIONS)',
    );
}

async function loadConfigAndWatches(
  ctx: CliContext,
  flags: WatchesFlags,
): Promise<{ config: HooksyncConfig; watches: WatchDefinition[] }> {
  const config = loadCliConfig(ctx.env, {
    watchesFile: flags.watches,
    destinationsFile: flags.destinations,
    databaseUrl: flags.databaseUrl,
    apiBaseUrl: flags.apiBaseUrl,
    apiKey: flags.apiKey,
    logLevel: flags.logLevel,
  });
  if (config.watchesFile === undefined) {
    throw new CliError('no watches file: set HOOKSYNC_WATCHES or pass --watches FILE', EXIT_USAGE);
  }
  const { loadWatches } = await import('../../watches/load-watches.js');
  // Only a CRM source needs the destinations file; loadWatches names it when one does and it is missing.
  let destinations: ConfiguredDestination[] | undefined;
  if (config.destinationsFile !== undefined) {
    const { loadDestinations } = await import('../../destinations/load-destinations.js');
    destinations = await loadDestinations(config.destinationsFile, ctx.env);
  }
  return { config, watches: await loadWatches(config.watchesFile, { destinations }) };
}

function findWatch(watches: readonly WatchDefinition[], name: string): WatchDefinition {
  const watch = watches.find((w) => w.name === name);
  if (watch === undefined) {
    throw new CliError(
      `no watch "${name}" in the watches file (watches: ${watches.map((w) => w.name).join(', ') || 'none'})`,
      EXIT_USAGE,
    );
  }
  return watch;
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

async function listCommand(ctx: CliContext, flags: WatchesFlags): Promise<void> {
  const { config, watches } = await loadConfigAndWatches(ctx, flags);
  await requireExistingDatabase(config.databaseUrl);
  const { withMigratedDatabase } = await import('../../storage/open-migrated-database.js');
  const { latestCycles, countWatchRows } = await import('../../watches/watch-store.js');
  const entries = await withMigratedDatabase(config.databaseUrl, async (database) => {
    const cycles = await latestCycles(database.db);
    const out = [];
    for (const watch of watches) {
      const cycle = cycles.get(watch.name);
      out.push({
        name: watch.name,
        launch: watch.operation.name,
        every_ms: watch.everyMs,
        rows: cycle?.rows ?? 0,
        remembered: await countWatchRows(database.db, watch.name),
        cycle: cycle?.cycle ?? null,
        checked: cycle?.checked ?? 0,
        running: cycle !== undefined && cycle.finished_at === null,
        next_check: cycle === undefined ? null : cycle.finished_at === null ? 'now' : cycle.ends_at,
        changes: cycle?.changes ?? 0,
        usd: round(Number(cycle?.usd_micros ?? 0) / 1e6),
        stopped: cycle?.stopped ?? null,
      });
    }
    return out;
  });
  if (flags.json === true) {
    writeLine(ctx.stdout, JSON.stringify({ watches: entries }));
    return;
  }
  if (entries.length === 0) writeLine(ctx.stdout, 'no watches in the file');
  for (const e of entries) {
    const state =
      e.cycle === null
        ? 'not started'
        : `cycle ${e.cycle}: ${e.checked}/${e.rows} checked, ${e.changes} changes, $${e.usd} spent${e.stopped === null ? '' : `, stopped (${e.stopped})`}; next check ${e.next_check}`;
    writeLine(ctx.stdout, `${e.name}  ${e.launch}  every ${e.every_ms / 1000}s  ${state}`);
  }
}

async function runCommand(
  ctx: CliContext,
  name: string,
  flags: WatchesFlags,
  telemetry?: Telemetry,
): Promise<void> {
  const { config, watches } = await loadConfigAndWatches(ctx, flags);
  const watch = findWatch(watches, name);
  const logger = createLogger(config.logLevel, ctx.stderr);
  const { openMigratedDatabase } = await import('../../storage/open-migrated-database.js');
  const { planForCycle } = await import('../../watches/watch-plan.js');
  const { runCycle } = await import('../../watches/run-cycle.js');
  const { SYSTEM_CLOCK } = await import('../../watches/watch-clock.js');
  const { countSource } = await import('../../watches/watched-rows.js');
  const { cycleToRunNow } = await import('../../watches/start-watches.js');
  const { latestCycle } = await import('../../watches/watch-store.js');
  const webhookUrl = config.publicUrl === undefined ? undefined : joinUrl(config.publicUrl, '/webhooks');
  if (flags.dryRun === true) {
    const database = await openMigratedDatabase(config.databaseUrl, { logger });
    try {
      const latest = await latestCycle(database.db, watch.name);
      const running = latest !== undefined && latest.finished_at === null;
      const plan = planForCycle(watch, running ? Date.parse(latest.started_at) : Date.now(), webhookUrl);
      const count = await countSource(
        database.db,
        watch,
        plan,
        running ? latest.cycle : (latest?.cycle ?? 0) + 1,
      );
      const { summarizePlays, describePlays } = await import('../../watches/plays/plays-summary.js');
      const plays = await summarizePlays(database.db, watch);
      const summary = {
        watch: watch.name,
        dry_run: true,
        rows: count.valid,
        invalid: count.invalid,
        would_check: count.pending,
        problems: count.problems,
        plays,
      };
      if (flags.json === true) writeLine(ctx.stdout, JSON.stringify(summary));
      else {
        for (const problem of count.problems) writeLine(ctx.stderr, problem);
        writeLine(
          ctx.stdout,
          `${watch.name}: ${count.pending} of ${count.valid} rows would be checked (${count.invalid} invalid); nothing sent`,
        );
        for (const line of describePlays(plays)) writeLine(ctx.stdout, `  ${line}`);
      }
    } finally {
      await database.close();
    }
    return;
  }
  const service = requireService(config);
  const { createClient } = await import('../../client/create-client.js');
  const { createLauncher } = await import('../../launch/create-launcher.js');
  const { createJobStore } = await import('../../storage/job-store/job-store.js');
  const { holdLease } = await import('../../storage/leases/hold-lease.js');
  const { createLeaseHolderId } = await import('../../storage/leases/acquire-lease.js');
  const { watchLeaseName, WATCH_LEASE_TTL_MS } = await import('../../watches/start-watches.js');
  const client = createClient({
    baseUrl: service.baseUrl,
    apiKey: service.apiKey,
    logger,
    ...(telemetry ? { fetch: telemetry.tracedFetch() } : {}),
    paths: {
      ...(config.searchContactPath !== undefined ? { searchContactLaunch: config.searchContactPath } : {}),
      ...(config.jobChangePath !== undefined ? { jobChangeLaunch: config.jobChangePath } : {}),
    },
  });
  const database = await openMigratedDatabase(config.databaseUrl, { logger });
  const store = createJobStore({ database, logger });
  const interrupt = new AbortController();
  void ctx.shutdown.then(() => interrupt.abort());
  try {
    const held = await holdLease(
      database.db,
      { name: watchLeaseName(watch.name), holder: createLeaseHolderId(), ttlMs: WATCH_LEASE_TTL_MS },
      { now: Date.now, logger, wait: false },
    );
    if ('reason' in held) {
      throw new CliError(
        `watch "${watch.name}" is running elsewhere (${held.reason === 'held' ? `${held.holder}, until ${held.expiresAt}` : 'aborted'}); try again later`,
        EXIT_FAILURE,
      );
    }
    try {
      await client.learnRateLimit().catch(() => undefined);
      const cycle = await cycleToRunNow(database.db, watch, Date.now());
      let lastDraw = 0;
      const summary = await runCycle(
        watch,
        cycle,
        {
          db: database.db,
          launcher: createLauncher({
            client,
            store,
            db: database.db,
            logger: logger.child({}, { level: 'warn' }),
          }),
          logger,
          clock: SYSTEM_CLOCK,
          webhookUrl,
          telemetry,
        },
        {
          spread: false,
          signal: AbortSignal.any([interrupt.signal, held.lost]),
          onProgress: (progress) => {
            if (!ctx.interactive || Date.now() - lastDraw < 100) return;
            lastDraw = Date.now();
            ctx.stderr.write(
              progress.total === undefined
                ? `\r${watch.name}: ${progress.done} checked, ${progress.read} read, $${progress.usd}   `
                : `\r${watch.name}: ${progress.done}/${progress.total} checked, $${progress.usd}   `,
            );
          },
        },
      );
      if (ctx.interactive) ctx.stderr.write('\n');
      const out = {
        watch: summary.watch,
        cycle: summary.cycle,
        rows: summary.rows,
        invalid: summary.invalid,
        checked: summary.checked,
        baseline: summary.baseline,
        changes: summary.changes,
        usd: summary.usd,
        stopped: summary.stopped,
        duplicates: summary.duplicates,
      };
      if (flags.json === true) writeLine(ctx.stdout, JSON.stringify(out));
      else
        writeLine(
          ctx.stdout,
          `${out.watch} cycle ${out.cycle}: ${out.checked} of ${out.rows} rows checked, ${out.baseline} baseline, ${out.changes} changes, $${out.usd}${out.duplicates > 0 ? `, ${out.duplicates} duplicates folded` : ''}${out.stopped === null ? '' : `; stopped: ${out.stopped}`}`,
        );
      if (summary.stopped !== null) ctx.setExitCode(EXIT_FAILURE);
    } finally {
      await held.release();
    }
  } finally {
    await store.close();
    await database.close();
  }
}

async function changesCommand(ctx: CliContext, name: string, flags: WatchesFlags): Promise<void> {
  const { config, watches } = await loadConfigAndWatches(ctx, flags);
  const watch = findWatch(watches, name);
  let since: string | undefined;
  if (flags.since !== undefined) {
    try {
      since = new Date(Date.now() - parseDuration(flags.since)).toISOString();
    } catch (error) {
      throw new CliError(`--since: ${(error as Error).message}`, EXIT_USAGE);
    }
  }
  await requireExistingDatabase(config.databaseUrl);
  const { withMigratedDatabase } = await import('../../storage/open-migrated-database.js');
  const { listChanges } = await import('../../watches/watch-store.js');
  const { playsOfChanges } = await import('../../watches/plays/play-store.js');
  const [changes, plays] = await withMigratedDatabase(config.databaseUrl, async (database) => {
    const found = await listChanges(database.db, watch.name, since);
    return [
      found,
      await playsOfChanges(
        database.db,
        found.map((c) => c.id),
      ),
    ] as const;
  });
  const json = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
  const shown = changes.map((c) => ({
    key: c.row_key,
    change: c.change,
    custom_fields: json(c.custom_fields),
    before: json(c.before),
    after: json(c.after),
    detected_at: c.detected_at,
    job_id: c.job_id,
    cycle: c.cycle,
    // What the change started: a successor search (its job), a CRM task (its id), and where each stands.
    plays: (plays.get(String(c.id)) ?? []).map((p) => ({
      play: p.play,
      state: p.state,
      ...(p.job_id === null ? {} : { job_id: p.job_id }),
      ...(p.task_id === null ? {} : { task_id: p.task_id, destination: p.destination }),
      ...(p.detail === null ? {} : { detail: p.detail }),
    })),
  }));
  if (flags.json === true) {
    writeLine(ctx.stdout, JSON.stringify({ watch: watch.name, changes: shown }));
    return;
  }
  if (shown.length === 0) writeLine(ctx.stdout, `${watch.name}: no changes`);
  for (const c of shown) {
    writeLine(
      ctx.stdout,
      `${c.detected_at}  ${c.change}  ${JSON.stringify(c.custom_fields)}  ${JSON.stringify(c.before)} -> ${JSON.stringify(c.after)}`,
    );
    for (const p of c.plays) {
      const what =
        p.play === 'task'
          ? `task ${p.task_id ?? ''} in ${p.destination ?? ''}`
          : `successor search ${p.job_id ?? ''}`;
      writeLine(
        ctx.stdout,
        `    ${what.replace(/\s+/g, ' ').trim()}: ${p.state}${p.detail === undefined ? '' : ` (${p.detail})`}`,
      );
    }
  }
}

export function registerWatchesCommand(program: Command, ctx: CliContext): void {
  const watches = program
    .command('watches')
    .description('contacts and accounts re-checked every cycle, changes handed on (docs/watches.md)');
  const list = watches
    .command('list')
    .description('each watch: rows, checked this cycle, next check, changes, spent');
  addWatchesFileOption(list);
  addJsonOption(list);
  addDatabaseOption(list);
  list.action((flags: WatchesFlags) => listCommand(ctx, flags));

  const run = watches
    .command('run <name>')
    .description('run one whole cycle of a watch now, in the foreground, at the rate (not spread)')
    .option(
      '--dry-run',
      'read and check the source, say how many rows would be checked and which plays would start (successor searches with their cost, CRM tasks); send nothing',
    );
  addWatchesFileOption(run);
  addJsonOption(run);
  addServiceOptions(run);
  addDatabaseOption(run);
  addLogLevelOption(run);
  run.action((name: string, flags: WatchesFlags) =>
    traceCommand(ctx.env, 'watches run', (telemetry) => runCommand(ctx, name, flags, telemetry)),
  );

  const changes = watches
    .command('changes <name>')
    .description(
      'the changes a watch found (successors too): key, custom_fields, before, after, detected_at, and the plays each started',
    )
    .option('--since <duration>', 'only changes found in this last span, e.g. 7d');
  addWatchesFileOption(changes);
  addJsonOption(changes);
  addDatabaseOption(changes);
  changes.action((name: string, flags: WatchesFlags) => changesCommand(ctx, name, flags));
}
