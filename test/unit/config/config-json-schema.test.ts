/**
 * The config files' JSON Schemas (issue 40), judged by an independent validator (ajv, draft 2020-12): they
 * compile strictly, every config example in README.md and docs/ passes them, and they agree with hooksync's
 * own validation on a set of good and bad files. What only code can check (a duration's syntax, a secret's
 * prefix, unique names) is not asked of the schema; every bad file here breaks its shape.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { DESTINATION_TYPES } from '../../../src/destinations/destination-types.js';
import { destinationsJsonSchema } from '../../../src/destinations/destinations-json-schema.js';
import { parseDestinations } from '../../../src/destinations/load-destinations.js';
import { parseWatches } from '../../../src/watches/load-watches.js';
import { watchesJsonSchema } from '../../../src/watches/watches-json-schema.js';

const root = join(import.meta.dirname, '../../..');
const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
const destinationsSchema = await destinationsJsonSchema();
const watchesSchema = await watchesJsonSchema();
const validDestinations = ajv.compile(destinationsSchema);
const validWatches = ajv.compile(watchesSchema);

/** Any environment variable a file names holds a usable value (hooksync's own settings are unset). */
const ENV = new Proxy({} as Record<string, string | undefined>, {
  get: (_target, name) =>
    typeof name === 'string' && !name.startsWith('HOOKSYNC_')
      ? `whsec_${Buffer.alloc(32, 7).toString('base64')}`
      : undefined,
});

async function hooksyncTakesDestinations(document: unknown): Promise<string | true> {
  try {
    await parseDestinations(document, ENV, 'test');
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

async function hooksyncTakesWatches(document: unknown): Promise<string | true> {
  const destinations = await parseDestinations(
    { destinations: [{ name: 'crm', type: 'hubspot', token: { env: 'T' } }] },
    ENV,
    'test',
  );
  try {
    await parseWatches(document, {
      label: 'test',
      baseDir: root,
      nowMs: Date.UTC(2026, 10, 22),
      destinations,
    });
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The JSON values of every ```json block of the docs, with where each is. */
function docExamples(): Array<{ where: string; value: unknown }> {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)].filter(
    (file) => file.endsWith('.md'),
  );
  const examples: Array<{ where: string; value: unknown }> = [];
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    let block: string[] | undefined;
    let start = 0;
    lines.forEach((line, index) => {
      const fence = /^\s*```(\S*)\s*$/.exec(line);
      if (fence === null) {
        block?.push(line);
        return;
      }
      if (block === undefined) {
        if (fence[1] === 'json') {
          block = [];
          start = index + 1;
        } else if (fence[1] !== '') block = undefined;
        return;
      }
      const text = block.join('\n');
      block = undefined;
      let values: unknown[];
      try {
        values = [JSON.parse(text)];
      } catch {
        // Several objects one after the other (a list of separate examples).
        values = JSON.parse(`[${text.replace(/}\s*\n\s*{/g, '},{')}]`) as unknown[];
      }
      for (const value of values) examples.push({ where: `${file}:${start}`, value });
    });
  }
  return examples;
}

function entrySchema(
  schema: Record<string, unknown>,
  list: 'destinations' | 'watches',
): Record<string, unknown> {
  const properties = schema.properties as Record<string, { items: unknown }>;
  return { $schema: schema.$schema, ...(properties[list]!.items as object) };
}

describe('the config files JSON Schemas', () => {
  it('declare draft 2020-12 and describe every field of every destination type', () => {
    expect(destinationsSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(watchesSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const items = (destinationsSchema.properties as Record<string, { items: { allOf: unknown[] } }>)
      .destinations!.items;
    const branches = items.allOf as Array<{
      if: { properties: { type: { const: string } } };
      then: { properties: Record<string, { description?: string }> };
    }>;
    expect(branches.map((branch) => branch.if.properties.type.const)).toEqual(Object.keys(DESTINATION_TYPES));
    for (const branch of branches) {
      for (const [field, property] of Object.entries(branch.then.properties)) {
        expect(property.description, `${branch.if.properties.type.const}.${field}`).toMatch(/\S/);
      }
    }
    const watch = (watchesSchema.properties as Record<string, { items: { properties: object } }>).watches!
      .items;
    for (const [field, property] of Object.entries(watch.properties)) {
      expect((property as { description?: string }).description, field).toMatch(/\S/);
    }
  });

  it('take every config example of README.md and docs/', () => {
    const validDestination = ajv.compile(entrySchema(destinationsSchema, 'destinations'));
    const validWatch = ajv.compile(entrySchema(watchesSchema, 'watches'));
    let checked = 0;
    for (const { where, value } of docExamples()) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      const judge =
        'destinations' in value
          ? validDestinations
          : 'watches' in value
            ? validWatches
            : 'launch' in value && 'from' in value
              ? validWatch
              : 'type' in value && 'name' in value && String(value.type) in DESTINATION_TYPES
                ? validDestination
                : undefined;
      if (judge === undefined) continue;
      checked++;
      expect(judge(value), `${where}: ${ajv.errorsText(judge.errors)}`).toBe(true);
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  const webhook = {
    name: 'warehouse',
    type: 'webhook',
    url: 'https://ingest.example/h',
    secret: { env: 'S' },
  };
  const goodDestinations: unknown[] = [
    { destinations: [] },
    { $schema: './destinations.schema.json', destinations: [webhook] },
    {
      destinations: [
        { ...webhook, kinds: ['job_change', 'watch_change'], timeout: '5s', retry: { schedule: ['1s'] } },
        { ...webhook, name: 'rated', concurrency: 2, rate: '10/1s', template: 'persons' },
        { name: 'drop', type: 'file', template: 'persons', directory: '/tmp/x', cron: '0 3 * * *' },
        {
          name: 'crm',
          type: 'hubspot',
          token: { env: 'T' },
          write: 'overwrite',
          fields: { jobtitle: 'skip' },
        },
        { name: 'pd', type: 'pipedrive', base_url: 'https://acme.pipedrive.com', token: { env: 'P' } },
        {
          name: 'sf',
          type: 'salesforce',
          login_url: 'https://acme.my.salesforce.com',
          auth: { grant: 'client_credentials', client_id: { env: 'I' }, client_secret: { env: 'C' } },
        },
      ],
    },
  ];
  const badDestinations: unknown[] = [
    {},
    { destinations: {} },
    { destinations: [webhook], extra: true },
    { $schema: 42, destinations: [] },
    { destinations: [{ name: 'x', url: 'https://a.example' }] },
    { destinations: [{ ...webhook, type: 'ftp' }] },
    { destinations: [{ name: 'w', type: 'webhook', secret: { env: 'S' } }] },
    { destinations: [{ ...webhook, urll: 'https://typo.example' }] },
    { destinations: [{ ...webhook, concurrency: 0 }] },
    { destinations: [{ ...webhook, concurrency: '4' }] },
    { destinations: [{ ...webhook, kinds: ['everything'] }] },
    { destinations: [{ ...webhook, kinds: [] }] },
    { destinations: [{ ...webhook, name: 'two words' }] },
    { destinations: [{ ...webhook, secret: { env: 'S', value: 'x' } }] },
    { destinations: [{ name: 'crm', type: 'hubspot', token: 'pat-na1-123' }] },
    { destinations: [{ name: 'crm', type: 'hubspot', token: { env: 'T' }, write: 'sometimes' }] },
    { destinations: [{ name: 'drop', type: 'file', template: 'persons', directory: '/tmp/x' }] },
    { destinations: [{ name: 'pd', type: 'pipedrive', base_url: 'https://a.pipedrive.com' }] },
    {
      destinations: [
        {
          name: 'sf',
          type: 'salesforce',
          login_url: 'https://a.my.salesforce.com',
          auth: { grant: 'password' },
        },
      ],
    },
  ];

  it('agree with hooksync on good and bad destinations files', async () => {
    for (const document of goodDestinations) {
      expect(await hooksyncTakesDestinations(document), JSON.stringify(document)).toBe(true);
      expect(validDestinations(document), ajv.errorsText(validDestinations.errors)).toBe(true);
    }
    for (const document of badDestinations) {
      expect(await hooksyncTakesDestinations(document), JSON.stringify(document)).not.toBe(true);
      expect(validDestinations(document), JSON.stringify(document)).toBe(false);
    }
  });

  const watch = { name: 'champions', launch: 'job-change', from: { file: 'contacts.csv' }, every: '30d' };
  const goodWatches: unknown[] = [
    { watches: [] },
    { $schema: './watches.schema.json', watches: [watch] },
    {
      watches: [
        { ...watch, map: { professional_email: 'Email' }, carry: { sf_id: 'Id' }, max_usd_per_cycle: 40 },
        { ...watch, name: 'crm-contacts', from: { hubspot: { destination: 'crm' } }, report_baseline: true },
        {
          name: 'new-vps',
          launch: 'search',
          from: { file: 'accounts.csv', format: 'csv' },
          set: { seniorities: ['Vice President', 'CXO'] },
          every: '7d',
        },
      ],
    },
  ];
  const badWatches: unknown[] = [
    {},
    { watches: [watch], more: [] },
    { watches: [{ ...watch, every: undefined }] },
    { watches: [{ ...watch, launch: 'reveal' }] },
    { watches: [{ ...watch, name: '-bad' }] },
    { watches: [{ ...watch, evry: '7d' }] },
    { watches: [{ ...watch, max_usd_per_cycle: -1 }] },
    { watches: [{ ...watch, report_baseline: 'yes' }] },
    { watches: [{ ...watch, from: undefined }] },
    { watches: [{ ...watch, from: { file: 'a.csv', format: 'xlsx' } }] },
    { watches: [{ ...watch, map: { professional_email: '' } }] },
  ];

  it('agree with hooksync on good and bad watches files', async () => {
    for (const document of goodWatches) {
      expect(await hooksyncTakesWatches(document), JSON.stringify(document)).toBe(true);
      expect(validWatches(document), ajv.errorsText(validWatches.errors)).toBe(true);
    }
    for (const document of badWatches) {
      expect(await hooksyncTakesWatches(document), JSON.stringify(document)).not.toBe(true);
      expect(validWatches(document), JSON.stringify(document)).toBe(false);
    }
  });
});
