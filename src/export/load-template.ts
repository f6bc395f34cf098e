/**
 * Finding templates: the built-in ones are JSON files in the package's templates/ folder (value tables in
 * templates/maps/); a user passes a path to their own. loadTemplate reads, checks and resolves one;
 * listTemplates summarises the built-ins.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { TemplateError } from '../errors.js';
import type { CsvDialectName } from './csv-dialects.js';
import type { SourceName } from './export-sources.js';
import { type ExportTemplate, parseTemplate, type ValueTable } from './parse-template.js';

/** The templates/ folder shipped with hooksync (beside src/ and dist/). */
export const BUILT_IN_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

/** Where built-in templates and value tables are looked up (tests point it elsewhere). */
export interface TemplateLocation {
  /** Default {@link BUILT_IN_TEMPLATES_DIR}. */
  readonly templatesDir?: string;
  /** Relative template paths resolve against this (default process.cwd()). */
  readonly cwd?: string;
}

/** One line of `templates list`. */
export interface TemplateSummary {
  readonly name: string;
  readonly source: SourceName;
  readonly dialect: CsvDialectName;
  readonly columns: number;
  readonly description: string;
}

const BUILT_IN_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const valueTableFileSchema = z.strictObject({
  description: z.string().optional(),
  values: z.record(z.string(), z.string()),
});

/** True when `nameOrPath` names a file rather than a built-in template. */
export function isTemplatePath(nameOrPath: string): boolean {
  return /[\\/]/.test(nameOrPath) || nameOrPath.endsWith('.json');
}

/**
 * Loads a built-in template by name (`hubspot-contacts`) or a template file by path (`./mine.json`).
 * Throws TemplateError: TEMPLATE_NOT_FOUND naming what was asked, or TEMPLATE_INVALID naming file and column.
 */
export async function loadTemplate(
  nameOrPath: string,
  location: TemplateLocation = {},
): Promise<ExportTemplate> {
  if (typeof nameOrPath !== 'string' || nameOrPath.trim() === '') {
    throw new TypeError('loadTemplate needs a template name or path');
  }
  const templatesDir = location.templatesDir ?? BUILT_IN_TEMPLATES_DIR;
  let file: string;
  if (isTemplatePath(nameOrPath)) {
    file = resolve(location.cwd ?? process.cwd(), nameOrPath);
  } else {
    if (!BUILT_IN_NAME.test(nameOrPath)) throw await notFound(nameOrPath, templatesDir);
    file = join(templatesDir, `${nameOrPath}.json`);
  }
  const builtIn = !isTemplatePath(nameOrPath);
  const raw = await readJson(file, builtIn ? undefined : nameOrPath).catch(async (error: unknown) => {
    if (builtIn && error instanceof TemplateError && error.code === 'TEMPLATE_NOT_FOUND') {
      throw await notFound(nameOrPath, templatesDir);
    }
    throw error;
  });
  const origin = builtIn ? `${nameOrPath} (built-in)` : file;
  const valueTables = await loadValueTables(raw, dirname(file), templatesDir, origin);
  const template = parseTemplate(raw, { origin, valueTables });
  if (builtIn && template.name !== nameOrPath) {
    throw new TemplateError(
      'TEMPLATE_INVALID',
      `template ${origin}: name is "${template.name}", not its file name`,
    );
  }
  return template;
}

/** The built-in templates, sorted by name. */
export async function listTemplates(location: TemplateLocation = {}): Promise<TemplateSummary[]> {
  const templatesDir = location.templatesDir ?? BUILT_IN_TEMPLATES_DIR;
  const names = await builtInNames(templatesDir);
  const summaries: TemplateSummary[] = [];
  for (const name of names) {
    const t = await loadTemplate(name, { templatesDir });
    summaries.push({
      name: t.name,
      source: t.source,
      dialect: t.dialect,
      columns: t.columns.length,
      description: t.description,
    });
  }
  return summaries;
}

async function builtInNames(templatesDir: string): Promise<string[]> {
  const entries = await readdir(templatesDir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.json') && !e.name.endsWith('.schema.json'))
    .map((e) => basename(e.name, '.json'))
    .sort();
}

async function notFound(name: string, templatesDir: string): Promise<TemplateError> {
  const known = await builtInNames(templatesDir);
  return new TemplateError(
    'TEMPLATE_NOT_FOUND',
    `no template named "${name}" (built-in: ${known.join(', ') || 'none'}; or pass the path of a .json file)`,
  );
}

async function readJson(file: string, shownAs: string | undefined): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') {
      throw new TemplateError('TEMPLATE_NOT_FOUND', `template file ${shownAs ?? file} does not exist`, {
        cause: error,
      });
    }
    throw new TemplateError('TEMPLATE_INVALID', `cannot read template file ${file}: ${String(error)}`, {
      cause: error,
    });
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (error) {
    throw new TemplateError(
      'TEMPLATE_INVALID',
      `template ${file}: not valid JSON (${(error as Error).message})`,
      {
        cause: error,
      },
    );
  }
}

/** Reads every value table the template's `map` transforms name, keyed as written. */
async function loadValueTables(
  raw: unknown,
  templateDir: string,
  templatesDir: string,
  origin: string,
): Promise<ReadonlyMap<string, ValueTable>> {
  const tables = new Map<string, ValueTable>();
  for (const name of tableNames(raw)) {
    const file = isTemplatePath(name)
      ? isAbsolute(name)
        ? name
        : resolve(templateDir, name)
      : BUILT_IN_NAME.test(name)
        ? join(templatesDir, 'maps', `${name}.json`)
        : undefined;
    if (file === undefined) continue;
    let content: unknown;
    try {
      content = await readJson(file, undefined);
    } catch (error) {
      if (error instanceof TemplateError && error.code === 'TEMPLATE_NOT_FOUND') continue; // parseTemplate names it
      throw error;
    }
    const parsed = valueTableFileSchema.safeParse(content);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TemplateError(
        'TEMPLATE_INVALID',
        `template ${origin}: value table ${file}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}`.trim(),
      );
    }
    tables.set(name, Object.freeze({ ...parsed.data.values }));
  }
  return tables;
}

/** Every `table` named by a map transform in the raw (not yet validated) template. */
function tableNames(raw: unknown): Set<string> {
  const names = new Set<string>();
  const columns =
    typeof raw === 'object' && raw !== null ? (raw as { columns?: unknown }).columns : undefined;
  if (!Array.isArray(columns)) return names;
  for (const column of columns) {
    const transforms =
      typeof column === 'object' && column !== null ? (column as { transforms?: unknown }).transforms : [];
    if (!Array.isArray(transforms)) continue;
    for (const t of transforms) {
      const table = typeof t === 'object' && t !== null ? (t as { table?: unknown }).table : undefined;
      if (typeof table === 'string' && table !== '') names.add(table);
    }
  }
  return names;
}
