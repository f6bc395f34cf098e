/**
 * The demo's export phase: one file per built-in template (plain CSV and the CRM import files), written
 * into one folder with the template's name, through the same runExport as `hooksync export`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { listTemplates, loadTemplate } from '../export/load-template.js';
import { runExport } from '../export/run-export.js';
import type { Database } from '../storage/database.js';
import type { DemoExport } from './demo-report.js';

/** Writes `<outDir>/<template>.csv` for every built-in template; creates `outDir` if needed. */
export async function exportDemoFiles(db: Kysely<Database>, outDir: string): Promise<DemoExport[]> {
  await mkdir(outDir, { recursive: true });
  const exports: DemoExport[] = [];
  for (const summary of await listTemplates()) {
    const template = await loadTemplate(summary.name);
    const file = join(outDir, `${summary.name}.csv`);
    const report = await runExport(db, template, { out: file });
    exports.push({ template: summary.name, file: report.out ?? file, rows: report.rows });
  }
  return exports;
}
