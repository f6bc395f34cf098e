/** `hooksync templates list|show`: the export templates. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';

export function registerTemplatesCommand(program: Command, _ctx: CliContext): void {
  const templates = program.command('templates').description('the export templates');
  templates
    .command('list')
    .description('list the built-in templates: name, source, dialect, columns, description')
    .action(() => notImplemented('templates list'));
  templates
    .command('show')
    .description("show a template's columns and where each comes from")
    .argument('<name|path>', 'template name or file')
    .action(() => notImplemented('templates show'));
}
