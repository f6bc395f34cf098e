/**
 * The commander program with the whole command set. Each command lives in commands/<name>.ts.
 */
import { Command } from 'commander';
import { registerDemoCommand } from './commands/demo.js';
import { registerDestinationsCommand } from './commands/destinations/register-destinations-command.js';
import { registerExportCommand } from './commands/export.js';
import { registerJobsCommand } from './commands/jobs.js';
import { registerLaunchCommand } from './commands/launch.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerPurgeCommand } from './commands/purge.js';
import { registerQuarantineCommand } from './commands/quarantine.js';
import { registerReconcileCommand } from './commands/reconcile.js';
import { registerRevealCommand } from './commands/reveal.js';
import { registerSchemaCommand } from './commands/schema.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSimCommand } from './commands/sim.js';
import { registerTemplatesCommand } from './commands/templates.js';
import { registerTrackCommand } from './commands/track.js';
import { registerWatchesCommand } from './commands/watches.js';
import type { CliContext } from './context.js';
import { VERSION } from './version.js';

/** Builds the program; errors surface as exceptions (exitOverride) so that main decides the exit code. */
export function createProgram(ctx: CliContext): Command {
  const program = new Command('hooksync')
    .description('Webhook receiver and job-sync kit for the contact and company data service')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    })
    .exitOverride();
  for (const register of [
    registerServeCommand,
    registerSimCommand,
    registerTrackCommand,
    registerReconcileCommand,
    registerJobsCommand,
    registerExportCommand,
    registerTemplatesCommand,
    registerMigrateCommand,
    registerRevealCommand,
    registerLaunchCommand,
    registerQuarantineCommand,
    registerPurgeCommand,
    registerDestinationsCommand,
    registerWatchesCommand,
    registerDemoCommand,
    registerSchemaCommand,
  ]) {
    register(program, ctx);
  }
  for (const command of allCommands(program)) command.exitOverride();
  return program;
}

function* allCommands(command: Command): Generator<Command> {
  for (const sub of command.commands) {
    yield sub;
    yield* allCommands(sub);
  }
}
