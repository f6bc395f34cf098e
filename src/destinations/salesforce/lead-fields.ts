/**
 * A person the core maps with the salesforce-contacts template may become a Lead; the Lead's fields are the
 * salesforce-leads template's (one mapping for files and for the API). Two columns are the same field when
 * they read the same source field through the same transforms (a `default` aside: MailingCity and City,
 * Current_Company__c and Company); a Contact column with no Lead counterpart (Department) is not sent to a
 * Lead, and the Lead template's defaults (LastName, Company: "[not provided]") fill a new Lead's required fields.
 */
import type { ExportTemplate } from '../../export/parse-template.js';

/** Contact field → Lead field, both ways, and the Lead's defaults. */
export interface LeadFields {
  readonly toLead: ReadonlyMap<string, string>;
  readonly toContact: ReadonlyMap<string, string>;
  readonly defaults: Readonly<Record<string, string>>;
}

type Column = ExportTemplate['columns'][number];

function signature(column: Column): string {
  const transforms = (column.transforms ?? []).filter((t) => (t as { op?: unknown }).op !== 'default');
  return JSON.stringify([column.field, transforms]);
}

/** The correspondence of the two templates' columns. */
export function leadFieldsOf(contacts: ExportTemplate, leads: ExportTemplate): LeadFields {
  const toLead = new Map<string, string>();
  const toContact = new Map<string, string>();
  const bySignature = new Map<string, string>();
  for (const column of leads.columns)
    if (!bySignature.has(signature(column))) bySignature.set(signature(column), column.header);
  for (const column of contacts.columns) {
    const lead =
      bySignature.get(signature(column)) ??
      (leads.columns.some((c) => c.header === column.header) ? column.header : undefined);
    if (lead === undefined || column.header.includes(':')) continue;
    toLead.set(column.header, lead);
    toContact.set(lead, column.header);
  }
  const defaults: Record<string, string> = {};
  for (const column of leads.columns) {
    const fallback = (column.transforms ?? []).find((t) => (t as { op?: unknown }).op === 'default') as
      | { value?: unknown }
      | undefined;
    if (typeof fallback?.value === 'string') defaults[column.header] = fallback.value;
  }
  return { toLead, toContact, defaults };
}

/** `properties` named for a Lead; fields a Lead lacks are dropped. */
export function asLead(
  fields: LeadFields,
  properties: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(properties)) {
    const lead = fields.toLead.get(name);
    if (lead !== undefined) out[lead] = value;
  }
  return out;
}
