/** `hooksync schema destinations|watches`: a config file's JSON Schema, for editors (issue 40). */
import type { Command } from 'commander';
import { type CliContext, CliError, EXIT_USAGE, writeLine } from '../context.js';

/** The files a schema is printed for. */
const FILES = ['destinations', 'watches'] as const;

export function registerSchemaCommand(program: Command, ctx: CliContext): void {
  program
    .command('schema')
    .description('print the JSON Schema (draft 2020-12) of a config file: destinations or watches')
    .argument('<file>', 'destinations or watches')
    .addHelpText(
      'after',
      '\nGenerated from the definitions hooksync validates the file with; a file may name it in "$schema"\n' +
        '(hooksync ignores that key). Example: hooksync schema destinations > destinations.schema.json\n' +
        '(docs/operations.md, "Editing config files").',
    )
    .action(async (file: string) => {
      if (!(FILES as readonly string[]).includes(file)) {
        throw new CliError(`schema: file must be one of ${FILES.join(', ')} (got "${file}")`, EXIT_USAGE);
      }
      // Loaded on use: the registry of destination types and the watches' loader are not needed otherwise.
      const schema =
        file === 'destinations'
          ? await (await import('../../destinations/destinations-json-schema.js')).destinationsJsonSchema()
          : await (await import('../../watches/watches-json-schema.js')).watchesJsonSchema();
      writeLine(ctx.stdout, JSON.stringify(schema, null, 2));
    });
}
