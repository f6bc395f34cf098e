/** The printing of `destinations replay <name> --dry-run` for a CRM destination. */
import type { DryRunReport } from '../../../destinations/crm/dry-run-replay.js';
import { type CliContext, writeLine } from '../../context.js';

function changesText(changes: DryRunReport['records'][number]['changes']): string {
  return changes
    .map(
      (change) =>
        `${change.property}: ${change.from === undefined ? '(empty)' : JSON.stringify(change.from)} → ${JSON.stringify(change.to)}`,
    )
    .join('; ');
}

/** Prints a replay dry run: one line per record, then the totals. */
export function printDryRun(ctx: CliContext, name: string, report: DryRunReport, json: boolean): void {
  if (json) {
    writeLine(ctx.stdout, JSON.stringify({ destination: name, dry_run: true, ...report }, null, 2));
    return;
  }
  for (const record of report.records) {
    const what = `${record.action.padEnd(6)} ${record.object} ${record.key || '(no key)'}`;
    const why =
      record.action === 'skip' || record.action === 'failed'
        ? (record.reason ?? 'nothing to change under the write policy')
        : changesText(record.changes);
    writeLine(ctx.stdout, `${what}: ${why}`);
    for (const warning of record.warnings) writeLine(ctx.stdout, `       left out: ${warning}`);
  }
  const count = (action: string) => report.records.filter((record) => record.action === action).length;
  writeLine(
    ctx.stdout,
    `${name} (dry run, nothing written): ${report.events} event(s); ${count('create')} to create, ${count('update')} to update, ${count('skip')} skipped, ${count('failed')} to fail, ${report.associations} association(s); about ${report.calls} API call(s)${report.tokens === undefined ? '' : `, ${report.tokens} token(s)`}`,
  );
}
