/** `hooksync migrate`: bring the database schema up to date. */
import type { Command } from 'commander';
import { type CliContext, CliError, writeLine } from '../context.js';
import { loadCliConfig } from '../load-cli-config.js';
import { addDatabaseOption } from '../options.js';

export function registerMigrateCommand(program: Command, ctx: CliContext): void {
  const command = program.command('migrate').description('create or upgrade the database schema');
  addDatabaseOption(command);
  command.action(async (flags: { databaseUrl?: string }) => {
    const config = loadCliConfig(ctx.env, { databaseUrl: flags.databaseUrl });
    const { migrateToLatest } = await import('../../storage/migrate-to-latest.js');
    const { openDatabase } = await import('../../storage/open-database.js');
    const { redactDatabaseUrl } = await import('../../storage/redact-database-url.js');
    const database = await openDatabase(config.databaseUrl);
    try {
      const report = await migrateToLatest(database);
      for (const name of report.applied) writeLine(ctx.stdout, `applied ${name}`);
      if (report.error !== undefined) {
        throw new CliError(`migration ${report.failed ?? ''} failed: ${report.error.message}`, 1, {
          cause: report.error,
        });
      }
      writeLine(
        ctx.stdout,
        `${redactDatabaseUrl(config.databaseUrl)} is up to date (${report.applied.length} migration(s) applied)`,
      );
    } finally {
      await database.close();
    }
  });
}
