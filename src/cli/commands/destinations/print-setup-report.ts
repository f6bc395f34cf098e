/** The printing of `destinations setup <name>`: what was (or would be) created and adopted. */
import type { SetupReport } from '../../../destinations/crm/setup-report.js';
import { type CliContext, writeLine } from '../../context.js';

/** Prints a setup report, one line per field and record, then the totals. */
export function printSetupReport(ctx: CliContext, name: string, report: SetupReport): void {
  const verb = report.dryRun ? 'would create' : 'created';
  const adopt = report.dryRun ? 'would adopt' : 'adopted';
  for (const property of report.properties)
    writeLine(
      ctx.stdout,
      `${verb} ${property.object} property ${property.name}${property.unique ? ' (unique)' : ''}`,
    );
  for (const adopted of report.adopted)
    writeLine(ctx.stdout, `${adopt} company ${adopted.id} (${adopted.domain})`);
  for (const ambiguous of report.ambiguous)
    writeLine(
      ctx.stdout,
      `ambiguous: ${ambiguous.domain} matches companies ${ambiguous.ids.join(', ')}: not adopted, merge them in the CRM`,
    );
  for (const adopted of report.adoptedContacts)
    writeLine(ctx.stdout, `${adopt} contact ${adopted.id} (${adopted.linkedinUrl})`);
  for (const ambiguous of report.ambiguousContacts)
    writeLine(
      ctx.stdout,
      `ambiguous: ${ambiguous.linkedinUrl} matches contacts ${ambiguous.ids.join(', ')}: not adopted, merge them in the CRM`,
    );
  for (const note of report.notes ?? []) writeLine(ctx.stdout, `note: ${note}`);
  const persons = report.adoptedPersons ?? [];
  const ambiguousPersons = report.ambiguousPersons ?? [];
  for (const adopted of persons)
    writeLine(
      ctx.stdout,
      `${adopt} ${adopted.object.toLowerCase()} ${adopted.id} (${adopted.email}) as ${adopted.key}`,
    );
  for (const ambiguous of ambiguousPersons)
    writeLine(
      ctx.stdout,
      `ambiguous: ${ambiguous.email} matches ${ambiguous.ids.join(', ')}: not adopted, merge them in the CRM`,
    );
  for (const warning of report.warnings ?? []) writeLine(ctx.stdout, `warning: ${warning}`);
  for (const problem of report.problems) writeLine(ctx.stdout, `problem: ${problem}`);
  if (report.allocation !== undefined)
    writeLine(
      ctx.stdout,
      `API allocation: ${report.allocation.remaining} of ${report.allocation.max} daily calls left`,
    );
  writeLine(
    ctx.stdout,
    `${name}: ${report.properties.length} property(ies) ${verb.split(' ').pop()}, ${report.adopted.length} company(ies) and ${report.adoptedContacts.length + persons.length} contact(s) ${report.dryRun ? 'to adopt' : 'adopted'}, ${report.ambiguous.length + report.ambiguousContacts.length + ambiguousPersons.length} ambiguous, ${report.alreadyKeyed + report.contactsAlreadyKeyed} already keyed${report.tokens === undefined ? '' : `; ${report.tokens} token(s) spent`}`,
  );
}
