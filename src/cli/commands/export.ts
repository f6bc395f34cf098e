/** `hooksync export`: write stored results as CSV or CRM import files. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption } from '../options.js';

export function registerExportCommand(program: Command, _ctx: CliContext): void {
  const command = program
    .command('export')
    .description('stream stored rows through a template into a CSV or CRM import file')
    .requiredOption(
      '--template <name|path>',
      'a built-in template name (see templates list) or a template file',
    )
    .option('--out <file>', 'output file, or - for stdout', '-')
    .option('--kind <kind>', 'only rows from jobs of this kind')
    .option('--since <iso>', 'only rows stored at or after this time')
    .option('--since-last', 'only rows stored since the last complete export with this template')
    .option('--dialect <dialect>', "excel or crm-import (default: the template's)")
    .option('--all', 'export every occurrence of a person, not only the newest');
  addDatabaseOption(command);
  command.action(() => notImplemented('export'));
}
