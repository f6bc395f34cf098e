/**
 * The rows a job gives a CRM destination: its companies and contacts templates' (the same mapping as the
 * files users import: hubspot-companies and hubspot-contacts, salesforce-accounts and salesforce-contacts,
 * ...), the contacts' with their employer's domain and name added for the company key and the link.
 */
import type { Kysely } from 'kysely';
import { exportRows, templateHeader } from '../../export/export-rows.js';
import { loadTemplate } from '../../export/load-template.js';
import type { ExportTemplate } from '../../export/parse-template.js';
import type { Database } from '../../storage/database.js';
import { COMPANY_DOMAIN_COLUMN, COMPANY_NAME_COLUMN } from './map-records.js';
import { normalizeDomain } from './normalize-keys.js';

/** The two templates, loaded once. */
export interface CrmTemplates {
  readonly companies: ExportTemplate;
  readonly contacts: ExportTemplate;
}

/** The built-in templates a CRM maps with, by name. */
export interface CrmTemplateNames {
  readonly companies: string;
  readonly contacts: string;
}

/**
 * Where the record id is carried when the destination names its own `custom_fields` key (Salesforce's
 * `id_field`): the templates' record id `column` then reads `task.custom_fields.<key>`.
 */
export interface CarriedIdField {
  readonly column: string;
  readonly key: string;
}

function carryingFrom(template: ExportTemplate, carried: CarriedIdField | undefined): ExportTemplate {
  if (carried === undefined) return template;
  const field = `task.custom_fields.${carried.key}`;
  return {
    ...template,
    columns: template.columns.map((column) =>
      column.header === carried.column ? { header: column.header, field, transforms: [] } : column,
    ),
  };
}

/** Loads the built-in templates the destination maps with. */
export async function loadCrmTemplates(
  names: CrmTemplateNames,
  carried?: CarriedIdField,
): Promise<CrmTemplates> {
  const [companies, contacts] = await Promise.all([
    loadTemplate(names.companies).then((template) => carryingFrom(template, carried)),
    loadTemplate(names.contacts).then((template) => carryingFrom(template, carried)),
  ]);
  return {
    companies,
    contacts: {
      ...contacts,
      columns: [
        ...contacts.columns,
        { header: COMPANY_DOMAIN_COLUMN, field: 'company_domain', transforms: [] },
        { header: COMPANY_NAME_COLUMN, field: 'company_name', transforms: [] },
      ],
    },
  };
}

async function rowsOf(db: Kysely<Database>, template: ExportTemplate, jobId: string) {
  const header = templateHeader(template);
  const rows: Array<Record<string, string>> = [];
  for await (const cells of exportRows(db, template, { jobId, all: true })) {
    rows.push(Object.fromEntries(header.map((column, index) => [column, cells[index] ?? ''])));
  }
  return rows;
}

/**
 * One job's rows for the kind it is (a reveal's companies, a search's or job change's persons). A record id
 * carried in `custom_fields` names one record: a reveal's company or a job change's contact; a search's
 * task names no person, so its persons never take it (`recordIdColumn` emptied).
 */
export async function crmRows(
  db: Kysely<Database>,
  templates: CrmTemplates,
  job: { readonly jobId: string; readonly kind: string },
  recordIdColumn?: string,
) {
  const contacts =
    job.kind === 'search_contact' || job.kind === 'job_change'
      ? await rowsOf(db, templates.contacts, job.jobId)
      : [];
  if (job.kind === 'search_contact' && recordIdColumn !== undefined)
    for (const row of contacts) if (row[recordIdColumn] !== undefined) row[recordIdColumn] = '';
  return {
    companies: job.kind === 'company_reveal' ? await rowsOf(db, templates.companies, job.jobId) : [],
    contacts,
  };
}

/**
 * The normalized domains of every company a destination would write (revealed, in the companies template's
 * `domainColumn`, or a person's employer), sorted: what setup adopts.
 */
export async function storedDomains(
  db: Kysely<Database>,
  templates: CrmTemplates,
  domainColumn: string,
): Promise<string[]> {
  const domains = new Set<string>();
  for (const [template, column] of [
    [templates.companies, domainColumn],
    [templates.contacts, COMPANY_DOMAIN_COLUMN],
  ] as const) {
    const index = templateHeader(template).indexOf(column);
    for await (const cells of exportRows(db, template)) {
      const domain = normalizeDomain(cells[index]);
      if (domain !== undefined) domains.add(domain);
    }
  }
  return [...domains].sort();
}
