import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TemplateError } from '../../../src/errors.js';
import { looseKey } from '../../../src/export/apply-transform.js';
import { listTemplates, loadTemplate } from '../../../src/export/load-template.js';
import { parseTemplate } from '../../../src/export/parse-template.js';
import { SYNTHETIC_INDUSTRIES } from '../../../src/simulator/data/industries.js';

const VALID = {
  name: 'mine',
  description: 'a user template',
  source: 'persons',
  dialect: 'crm-import',
  columns: [
    { header: 'Name', concat: { fields: ['first_name', 'last_name'] } },
    { header: 'CRM id', field: 'task.custom_fields.crm_id' },
    { header: 'First job', field: 'experiences.0.title' },
  ],
};

function problem(value: unknown): string {
  try {
    parseTemplate(value, { origin: '/tmp/t.json' });
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    expect((error as TemplateError).code).toBe('TEMPLATE_INVALID');
    return (error as Error).message;
  }
  throw new Error('expected a TemplateError');
}

function withColumns(...columns: unknown[]): unknown {
  return { ...VALID, columns: [{ header: 'ok', field: 'first_name' }, ...columns] };
}

describe('parseTemplate: errors name the file, the column and what is wrong', () => {
  it.each([
    [
      withColumns({ header: 'Bad', field: 'frist_name' }),
      /^template \/tmp\/t\.json: column 2 "Bad": unknown field "frist_name" for source persons/,
    ],
    [
      withColumns({ header: 'Bad', field: 'first_name.x' }),
      /column 2 "Bad": field "first_name\.x": first_name is not JSON/,
    ],
    [
      withColumns({ header: 'Bad' }),
      /column 2 "Bad": needs exactly one of "field", "firstOf", "concat" or "value"/,
    ],
    [withColumns({ header: 'Bad', field: 'id', value: 'x' }), /column 2 "Bad": needs exactly one of/],
    [
      withColumns({ header: 'Bad', field: 'id', transforms: [{ op: 'rot13' }] }),
      /column 2 "Bad": transforms\[0\]\.op: /,
    ],
    [
      withColumns({ header: 'Bad', field: 'id', transforms: [{ op: 'map' }] }),
      /column 2 "Bad": transforms\[0\]: map needs "values" or "table"/,
    ],
    [
      withColumns({ header: 'Bad', field: 'id', transforms: [{ op: 'map', table: 'nope' }] }),
      /column 2 "Bad": transforms\[0\]\.table: no value table "nope"/,
    ],
    [
      withColumns({
        header: 'Bad',
        field: 'id',
        transforms: [{ op: 'blankIf', field: 'status', in: ['x'] }],
      }),
      /column 2 "Bad": transforms\[0\]\.field: unknown field "status"/,
    ],
    [withColumns({ header: 'Bad', field: 'id', colour: 'red' }), /column 2 "Bad": unknown key "colour"/],
    [withColumns({ header: '=cmd', field: 'id' }), /column 2 "=cmd": header: must not start with/],
    [withColumns({ header: 'ok', field: 'id' }), /column 2 "ok": header repeats column 1/],
    [{ ...VALID, source: 'deals' }, /^template \/tmp\/t\.json: source: /],
    [{ ...VALID, dialect: 'tsv' }, /dialect: /],
    [{ ...VALID, columns: [] }, /columns: a template needs at least one column/],
    [{ ...VALID, filter: { job_change_status: ['gone'] } }, /filter\.job_change_status\[0\]: /],
    [
      {
        ...VALID,
        source: 'companies',
        columns: [{ header: 'n', field: 'name' }],
        filter: { job_change_status: ['left'] },
      },
      /source companies has no job changes/,
    ],
    [{ ...VALID, filter: { present: ['experiences.0.title'] } }, /filter\.present: .* reaches into JSON/],
    [{ ...VALID, name: 'Has Spaces' }, /name: must be lower-case/],
    ['not an object', /template \/tmp\/t\.json: /],
  ])('%#: %s', (value, message) => {
    expect(problem(value)).toMatch(message);
  });

  it('counts further problems', () => {
    expect(problem(withColumns({ header: 'a', field: 'x' }, { header: 'b', field: 'y' }))).toMatch(
      /\(and 1 more: column 3 "b"/,
    );
  });
});

describe('loadTemplate and listTemplates', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hooksync-templates-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('loads every built-in template, named like its file', async () => {
    const summaries = await listTemplates();
    expect(summaries.map((s) => s.name)).toEqual([
      'companies',
      'hubspot-companies',
      'hubspot-contacts',
      'job-changes',
      'persons',
      'pipedrive-organizations',
      'pipedrive-persons',
      'salesforce-accounts',
      'salesforce-contacts',
      'salesforce-leads',
    ]);
    for (const s of summaries) expect((await loadTemplate(s.name)).origin).toBe(`${s.name} (built-in)`);
  });

  it('loads a user template by path, with a value table next to it', async () => {
    const file = join(dir, 'mine.json');
    await writeFile(join(dir, 'levels.json'), JSON.stringify({ values: { CXO: 'C-level' } }));
    const template = {
      ...VALID,
      columns: [
        ...VALID.columns,
        { header: 'Level', field: 'seniority', transforms: [{ op: 'map', table: './levels.json' }] },
      ],
    };
    await writeFile(file, JSON.stringify(template));
    const loaded = await loadTemplate(file);
    expect(loaded.origin).toBe(file);
    expect(loaded.valueTables.get('./levels.json')).toEqual({ CXO: 'C-level' });
    expect((await loadTemplate('./mine.json', { cwd: dir })).name).toBe('mine');
  });

  it('names what was asked for when nothing is found', async () => {
    await expect(loadTemplate('hubspot')).rejects.toMatchObject({
      code: 'TEMPLATE_NOT_FOUND',
      message: expect.stringMatching(/no template named "hubspot" \(built-in: companies, hubspot-companies/),
    });
    await expect(loadTemplate(join(dir, 'missing.json'))).rejects.toMatchObject({
      code: 'TEMPLATE_NOT_FOUND',
    });
    await expect(loadTemplate('../etc/passwd')).rejects.toMatchObject({ code: 'TEMPLATE_NOT_FOUND' });
  });

  it('reports a file that is not JSON, naming it', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{ "name": ');
    await expect(loadTemplate(file)).rejects.toMatchObject({
      code: 'TEMPLATE_INVALID',
      message: expect.stringContaining(`template ${file}: not valid JSON`),
    });
  });

  it('maps every industry the simulator uses to a HubSpot value', async () => {
    const template = await loadTemplate('hubspot-companies');
    const table = template.valueTables.get('hubspot-industry') ?? {};
    const keys = new Set(Object.keys(table).map(looseKey));
    expect(SYNTHETIC_INDUSTRIES.filter((industry) => !keys.has(looseKey(industry)))).toEqual([]);
    for (const value of Object.values(table)) expect(value).toMatch(/^[A-Z][A-Z_]+$/);
  });
});
