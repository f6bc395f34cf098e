/** `hooksync serve`: the webhook receiver. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption, addLogLevelOption, addServiceOptions } from '../options.js';

export function registerServeCommand(program: Command, _ctx: CliContext): void {
  const command = program
    .command('serve')
    .description(
      'receive, verify and store the service callbacks on POST /webhooks (migrates the database first)',
    )
    .option('--host <host>', 'address to listen on (env HOOKSYNC_HOST, default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (env HOOKSYNC_PORT, default 8787)')
    .option(
      '--jwks-url <url>',
      'webhook key set URL (env HOOKSYNC_JWKS_URL, default base URL + /.well-known/jwks.json)',
    )
    .option(
      '--unsigned <policy>',
      'unsigned callbacks: reject or fetch (env HOOKSYNC_UNSIGNED, default reject)',
    )
    .option('--reconcile-cron <expr>', 'also run reconcile on this cron schedule, e.g. "0 3 * * *"');
  addServiceOptions(command);
  addDatabaseOption(command);
  addLogLevelOption(command);
  command.action(() => notImplemented('serve'));
}
