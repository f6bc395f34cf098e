/** `hooksync destinations resume <name>`: resumes a paused destination. */
import type { Command } from 'commander';
import { type CliContext, CliError, writeLine } from '../../context.js';
import { addCommonOptions, type CommonFlags, withDestinations } from './with-destinations.js';

/** Registers `resume` under `destinations`. */
export function registerResumeCommand(destinations: Command, ctx: CliContext): void {
  const resume = destinations
    .command('resume')
    .description(
      'resume a destination paused by a 410 Gone answer (a running serve picks it up within a second)',
    )
    .argument('<name>', 'the destination');
  addCommonOptions(resume);
  resume.action(async (name: string, flags: CommonFlags) => {
    const { resumeDestination } = await import('../../../destinations/outbox.js');
    await withDestinations(ctx, flags, async (database) => {
      if (!(await resumeDestination(database.db, name, new Date().toISOString()))) {
        throw new CliError(`no destination named "${name}" (see hooksync destinations list)`);
      }
    });
    writeLine(ctx.stdout, `${name} resumed`);
  });
}
