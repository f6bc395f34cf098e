/** `hooksync templates list|show`: the export templates. */
import type { Command } from 'commander';
import { type CliContext, writeLine } from '../context.js';
import { addJsonOption } from '../options.js';

export function registerTemplatesCommand(program: Command, ctx: CliContext): void {
  const templates = program.command('templates').description('the export templates');
  addJsonOption(
    templates
      .command('list')
      .description('list the built-in templates: name, source, dialect, columns, description')
      .action(async (options: { json?: boolean }) => {
        const { listTemplates } = await import('../../export/load-template.js');
        const summaries = await listTemplates();
        if (options.json === true) {
          writeLine(ctx.stdout, JSON.stringify(summaries, null, 2));
          return;
        }
        const rows = summaries.map((s) => [s.name, s.source, s.dialect, String(s.columns), s.description]);
        for (const line of formatTable(['NAME', 'SOURCE', 'DIALECT', 'COLUMNS', 'DESCRIPTION'], rows)) {
          writeLine(ctx.stdout, line);
        }
      }),
  );
  addJsonOption(
    templates
      .command('show')
      .description("show a template's columns and where each comes from")
      .argument('<name|path>', 'template name or file')
      .action(async (nameOrPath: string, options: { json?: boolean }) => {
        // Loaded on use: the other commands start without the export modules.
        const [{ describeTemplate }, { loadTemplate }] = await Promise.all([
          import('../../export/describe-template.js'),
          import('../../export/load-template.js'),
        ]);
        const description = describeTemplate(await loadTemplate(nameOrPath));
        if (options.json === true) {
          writeLine(ctx.stdout, JSON.stringify(description, null, 2));
          return;
        }
        writeLine(ctx.stdout, `${description.name}: ${description.description}`);
        writeLine(ctx.stdout, `source:  ${description.source} (${description.sourceDescription})`);
        writeLine(ctx.stdout, `dialect: ${description.dialect}`);
        writeLine(ctx.stdout, `filter:  ${description.filter}`);
        writeLine(
          ctx.stdout,
          `rows:    ${description.dedupe ? 'newest per person or company (--all for every one)' : 'every one'}`,
        );
        writeLine(ctx.stdout, `from:    ${description.origin}`);
        writeLine(ctx.stdout, '');
        const rows = description.columns.map((c) => [c.header, c.reads, c.from, c.transforms]);
        for (const line of formatTable(['HEADER', 'FIELD', 'FROM', 'TRANSFORMS'], rows))
          writeLine(ctx.stdout, line);
        if (description.notes.length > 0) writeLine(ctx.stdout, '');
        for (const note of description.notes) writeLine(ctx.stdout, `note: ${note}`);
      }),
  );
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows].map((row) => row.map((cell) => cell.replace(/\s+/g, ' ')));
  const widths = header.map((_, i) => Math.max(...all.map((row) => [...(row[i] ?? '')].length)));
  return all.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length),
      )
      .join('  ')
      .trimEnd(),
  );
}
