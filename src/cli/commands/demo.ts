/** `hooksync demo`: the one-command tour. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';

export function registerDemoCommand(program: Command, _ctx: CliContext): void {
  program
    .command('demo')
    .description(
      'run the simulator and the receiver with faults switched on, reconcile, export, and print a summary',
    )
    .option('--out <dir>', 'where the exported files go', './hooksync-demo')
    .action(() => notImplemented('demo'));
}
