/**
 * docs/templates.md documents what the code accepts: every field of every source, every transform, every
 * built-in template and dialect. A field added to a source without a line in the docs fails here.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CSV_DIALECT_NAMES } from '../../../src/export/csv-dialects.js';
import { EXPORT_SOURCES, SOURCE_NAMES } from '../../../src/export/export-sources.js';
import { listTemplates } from '../../../src/export/load-template.js';
import { transformSchema } from '../../../src/export/template-schema.js';

const doc = await readFile(new URL('../../../docs/templates.md', import.meta.url), 'utf8');

describe('docs/templates.md', () => {
  it.each(SOURCE_NAMES)('names every field of source %s', (name) => {
    const missing = [...EXPORT_SOURCES[name].fields.keys()].filter((field) => !doc.includes(`\`${field}\``));
    expect(missing).toEqual([]);
  });

  it('names every transform, dialect and built-in template', async () => {
    const ops = transformSchema.options.map((option) => option.shape.op.value);
    for (const op of ops) expect(doc).toContain(`| \`${op}\` |`);
    for (const dialect of CSV_DIALECT_NAMES) expect(doc).toContain(dialect);
    for (const { name } of await listTemplates()) expect(doc).toContain(`| \`${name}\` |`);
  });
});
