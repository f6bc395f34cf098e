/**
 * Checks a hooksync command line (as docker-compose.yml or the Dockerfile runs it) against the commander
 * program: the subcommand exists, every flag is one of its options, value-taking flags have a value, choices
 * are respected, and no more positional arguments than it declares.
 */
import type { Command } from 'commander';

/** What is wrong with `argv` as a hooksync command line (empty when the CLI accepts its shape). */
export function commandProblems(program: Command, argv: readonly string[]): string[] {
  const [name, ...rest] = argv;
  const command = program.commands.find((c) => c.name() === name || c.aliases().includes(name ?? ''));
  if (command === undefined) return [`no subcommand "${name}"`];
  const problems: string[] = [];
  let positionals = 0;
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i] ?? '';
    if (!token.startsWith('-')) {
      positionals++;
      continue;
    }
    const [flag, inline] = token.includes('=')
      ? [token.slice(0, token.indexOf('=')), token.slice(token.indexOf('=') + 1)]
      : [token, undefined];
    const option = command.options.find((o) => o.long === flag || o.short === flag);
    if (option === undefined) {
      problems.push(`${name} has no option ${flag}`);
      // Its value, if any, is not a positional argument: skip it so that one mistake is reported once.
      if (inline === undefined && rest[i + 1] !== undefined && !rest[i + 1]?.startsWith('-')) i++;
      continue;
    }
    if (!option.required && !option.optional) continue;
    const value = inline ?? rest[++i];
    if (value === undefined || (option.required && inline === undefined && value.startsWith('--')))
      problems.push(`${flag} needs a value`);
    else if (option.argChoices && !value.includes('${') && !option.argChoices.includes(value))
      problems.push(`${flag} does not accept ${value}`);
  }
  if (positionals > command.registeredArguments.length)
    problems.push(`${name} takes ${command.registeredArguments.length} argument(s)`);
  return problems;
}
