/** `hooksync sim`: the local stand-in for the service. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';

export function registerSimCommand(program: Command, _ctx: CliContext): void {
  program
    .command('sim')
    .description('run a local simulator of the service, with signed webhooks and fault injection')
    .option('--port <port>', 'port to listen on (default 8788)')
    .option('--api-key <key>', 'master API key (generated and printed when omitted)')
    .action(() => notImplemented('sim'));
}
