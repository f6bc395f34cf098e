/** `hooksync quarantine list`: refused callbacks and why. */
import type { Command } from 'commander';
import { type CliContext, writeLine } from '../context.js';
import { loadCliConfig, requireExistingDatabase } from '../load-cli-config.js';
import { addDatabaseOption, addJsonOption, parseLimit } from '../options.js';
import { printTable } from '../print-table.js';

export function registerQuarantineCommand(program: Command, ctx: CliContext): void {
  const quarantine = program
    .command('quarantine')
    .description('callbacks that were refused, with the reason');
  const list = quarantine
    .command('list')
    .description(
      'list quarantined callbacks, newest first (bodies are not printed: they may hold personal data)',
    )
    .option('--limit <n>', 'at most this many');
  addJsonOption(list);
  addDatabaseOption(list);
  list.action(async (flags: { json?: boolean; limit?: string; databaseUrl?: string }) => {
    const limit = parseLimit(flags.limit);
    const config = loadCliConfig(ctx.env, { databaseUrl: flags.databaseUrl });
    await requireExistingDatabase(config.databaseUrl);
    const { listQuarantine } = await import('../../storage/quarantine/list-quarantine.js');
    const { withMigratedDatabase } = await import('../../storage/open-migrated-database.js');
    const rows = await withMigratedDatabase(config.databaseUrl, ({ db }) =>
      listQuarantine(db, limit !== undefined ? { limit } : {}),
    );
    const summaries = rows.map((row) => ({
      id: row.id,
      received_at: row.received_at,
      reason: row.reason,
      claimed_job_id: row.claimed_job_id,
      kind: row.kind,
      bytes: row.body.length,
      detail: row.detail,
    }));
    if (flags.json) {
      writeLine(ctx.stdout, JSON.stringify(summaries, null, 2));
      return;
    }
    printTable(ctx.stdout, ['received_at', 'reason', 'claimed_job_id', 'kind', 'bytes', 'detail'], summaries);
  });
}
