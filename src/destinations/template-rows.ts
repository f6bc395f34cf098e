/**
 * The rows of an export template for one job, keyed by column header: what a template destination sends
 * with each event. The template is loaded once, on first use.
 */
import { exportRows, templateHeader } from '../export/export-rows.js';
import { loadTemplate } from '../export/load-template.js';
import type { ExportTemplate } from '../export/parse-template.js';
import type { HooksyncDatabase } from '../storage/open-database.js';

/** A job's rows under one template. */
export type TemplateRows = (jobId: string) => Promise<Array<Record<string, string>>>;

/** Reads `template`'s rows from `database`. */
export function createTemplateRows(database: HooksyncDatabase, template: string): TemplateRows {
  let loaded: Promise<ExportTemplate> | undefined;
  return async (jobId) => {
    loaded ??= loadTemplate(template);
    const parsed = await loaded;
    const header = templateHeader(parsed);
    const rows: Array<Record<string, string>> = [];
    for await (const cells of exportRows(database.db, parsed, { jobId, all: true })) {
      rows.push(Object.fromEntries(header.map((column, index) => [column, cells[index] ?? ''])));
    }
    return rows;
  };
}
