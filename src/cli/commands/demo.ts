/** `hooksync demo`: the one-command tour. */
import { type Command, Option } from 'commander';
import { LOG_LEVELS, type LogLevel } from '../../config/load-config.js';
import type { DemoReport } from '../../demo/demo-report.js';
import type { DemoProgress } from '../../demo/run-demo.js';
import { type CliContext, CliError, EXIT_ABORTED, EXIT_FAILURE, writeLine } from '../context.js';
import { createLogger } from '../create-logger.js';
import { printTable } from '../print-table.js';

/** The demo logs warnings and errors only, so that its own lines on stderr stay readable. */
export const DEFAULT_DEMO_LOG_LEVEL: LogLevel = 'warn';
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_INTERVAL_MS = 80;

interface DemoFlags {
  out: string;
  keepDb?: boolean;
  logLevel: LogLevel;
}

/** Registers `hooksync demo`. */
export function registerDemoCommand(program: Command, ctx: CliContext): void {
  program
    .command('demo')
    .description(
      'run the simulator and the receiver with faults switched on, reconcile, export, and print a summary',
    )
    .option('--out <dir>', 'where the exported files go', './hooksync-demo')
    .option('--keep-db', 'keep the temporary SQLite database and print where it is')
    .addOption(
      new Option('--log-level <level>', 'log level on stderr')
        .choices(LOG_LEVELS)
        .default(DEFAULT_DEMO_LOG_LEVEL),
    )
    .action((flags: DemoFlags) => demoCommand(ctx, flags));
}

async function demoCommand(ctx: CliContext, flags: DemoFlags): Promise<void> {
  const logger = createLogger(flags.logLevel, ctx.stderr);
  const abort = new AbortController();
  void ctx.shutdown.then((signal) => abort.abort(new Error(`demo interrupted by ${signal}`)));
  const progress = createProgress(ctx);
  let report: DemoReport;
  try {
    const { runDemo } = await import('../../demo/run-demo.js');
    report = await runDemo({
      outDir: flags.out,
      keepDatabase: flags.keepDb === true,
      logger,
      signal: abort.signal,
      onProgress: progress.phase,
      ...(ctx.storeWorkerUrl ? { storeWorkerUrl: ctx.storeWorkerUrl } : {}),
    });
  } catch (error) {
    if (abort.signal.aborted) throw new CliError((abort.signal.reason as Error).message, EXIT_ABORTED);
    throw error;
  } finally {
    progress.end();
    logger.flush();
  }
  printSummary(ctx, report, flags.out);
  if (report.problems.length > 0) {
    for (const problem of report.problems) writeLine(ctx.stderr, `hooksync demo: ${problem}`);
    throw new CliError(
      `demo: ${report.problems.length} of its checks failed (seed ${report.seed}); see above`,
      EXIT_FAILURE,
    );
  }
}

/** A line per phase on stderr; on a terminal, a spinner on the phase in progress, ticked when done. */
function createProgress(ctx: CliContext): { phase: (p: DemoProgress) => void; end: () => void } {
  let current: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  const finish = (): void => {
    clearInterval(timer);
    if (current !== undefined && ctx.interactive) ctx.stderr.write(`\r✓ ${current}\u001b[K\n`);
    current = undefined;
  };
  return {
    phase(p) {
      finish();
      current = `[${p.step}/${p.steps}] ${p.title}`;
      if (!ctx.interactive) {
        writeLine(ctx.stderr, `${current}…`);
        return;
      }
      let frame = 0;
      const draw = () =>
        ctx.stderr.write(`\r${SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length]} ${current}…\u001b[K`);
      draw();
      timer = setInterval(draw, SPINNER_INTERVAL_MS);
      timer.unref();
    },
    end: finish,
  };
}

const FAULT_ROWS = [
  ['drop', 'dropped', "never sent; stored from the launcher's answer or recovered by reconcile"],
  ['duplicate', 'duplicated', 'the second copy answered 200 duplicate; stored once'],
  ['tamper', 'tampered with', 'refused 400 BODY_HASH_MISMATCH and quarantined; the job recovered'],
  ['unsigned', 'sent unsigned', 'refused 401 SIGNATURE_MISSING and quarantined; the job recovered'],
] as const;

const OUTCOME_NOTES: Readonly<Record<string, string>> = {
  stored: 'verified and stored',
  updated: 'a RUNNING copy upgraded',
  duplicate: 'already stored (the launcher answer, or a copy sent twice)',
  replay: 'a token seen before',
  fetched: 'unsigned, replaced by the finder copy',
  refused: 'forged, spoiled or unsigned: 4xx, quarantined',
  retry_later: '500: the sender retries',
  overloaded: '429: the sender retries',
};

function printSummary(ctx: CliContext, report: DemoReport, out: string): void {
  const { launched, reconcile } = report;
  const total = launched.company_reveal + launched.search_contact + launched.job_change;
  const w = (line = '') => writeLine(ctx.stdout, line);
  w(
    `hooksync demo: ${total} jobs launched against the simulator (seed ${report.seed}) in ` +
      `${(report.durationMs / 1000).toFixed(1)} s`,
  );
  w(
    `  ${launched.company_reveal} company reveals, ${launched.search_contact} contact searches, ` +
      `${launched.job_change} job-change checks; ${report.jobsStored} jobs stored` +
      (report.problems.length === 0 ? ', each exactly once and byte for byte as the service holds it' : ''),
  );
  w();
  w(`Callbacks received: ${report.received}`);
  printTable(
    ctx.stdout,
    ['OUTCOME', 'COUNT', 'MEANING'],
    Object.entries(report.outcomes)
      .sort(([, a], [, b]) => b - a)
      .map(([outcome, count]) => ({ OUTCOME: outcome, COUNT: count, MEANING: OUTCOME_NOTES[outcome] ?? '' })),
  );
  w(`  duplicates ignored: ${report.duplicatesIgnored}`);
  w();
  w('Faults the simulator injected (callbacks affected)');
  printTable(
    ctx.stdout,
    ['FAULT', 'COUNT', 'HANDLED'],
    [
      ...FAULT_ROWS.map(([fault, label, handled]) => ({
        FAULT: label,
        COUNT: report.faults[fault],
        HANDLED: handled,
      })),
      {
        FAULT: 'key rotated midway',
        COUNT: report.rotation.acceptedWithNewKey,
        HANDLED: `signed by the new key ${report.rotation.kid.slice(0, 8)}…, fetched on first sight: verified`,
      },
    ],
  );
  w();
  w(`Refused, from the quarantine: ${report.refused.reduce((sum, r) => sum + r.count, 0)}`);
  printTable(
    ctx.stdout,
    ['REASON', 'COUNT'],
    report.refused.map((r) => ({ REASON: r.reason, COUNT: r.count })),
  );
  w();
  w(
    `Recovered by reconcile: ${reconcile.recovered} (${reconcile.status}; ${reconcile.fetched} fetched ` +
      `through the finders, ${reconcile.already_received} already received, ${reconcile.requests} requests)`,
  );
  w();
  w(`Exported to ${out}`);
  printTable(
    ctx.stdout,
    ['FILE', 'ROWS'],
    report.exports.map((e) => ({ FILE: `${e.template}.csv`, ROWS: e.rows })),
  );
  w();
  w(
    `Handed on to the webhook destination "${report.destination.name}": ${report.destination.jobs} of ` +
      `${report.jobsStored} stored jobs, each signed (Standard Webhooks) and checked by the consumer`,
  );
  w();
  if (report.databaseKept) {
    w(`Database kept: ${report.databasePath}`);
    w(`  try: npx hooksync jobs list --database-url ${report.databasePath}`);
  } else {
    w('Database removed (--keep-db keeps it to explore with hooksync jobs, quarantine, export).');
  }
}
