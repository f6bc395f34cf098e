/**
 * Random sequences of e-mail-keyed batch upserts over real HTTP, checked against a plain model of HubSpot's
 * documented semantics (shared/docs/hubspot-api.md §1): keys match case-insensitively, a duplicate key after
 * normalization fails the batch and writes nothing, provided values overwrite, `""` clears, omitted stay.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubSpotStandIn, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { call } from './http.js';

let hs: HubSpotStandIn;
beforeAll(async () => {
  hs = await startHubSpotStandIn({ tenSecondly: 1_000_000 });
});
afterAll(() => hs.close());

const FIELDS = ['firstname', 'jobtitle', 'city'] as const;
const local = fc.constantFrom('ada', 'bob', 'cy');
const casing = fc.constantFrom('lower', 'upper', 'mixed');
const value = fc.constantFrom('', 'x', 'y', 'Zoë');
const input = fc.record({
  local,
  casing,
  properties: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 3 }),
});
const batch = fc.array(input, { minLength: 1, maxLength: 4 });

function spell(email: string, style: string): string {
  if (style === 'upper') return email.toUpperCase();
  return style === 'mixed' ? email.charAt(0).toUpperCase() + email.slice(1) : email;
}

describe('batch upsert against a model', () => {
  it('keeps the documented semantics for any sequence of batches', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 4 }), async (batches) => {
        run += 1;
        const domain = `run${run}.example.com`;
        const model = new Map<string, Map<string, string>>();
        for (const inputs of batches) {
          const keys = inputs.map((i) => `${i.local}@${domain}`);
          const answer = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/upsert', {
            inputs: inputs.map((i) => ({
              idProperty: 'email',
              id: spell(`${i.local}@${domain}`, i.casing),
              properties: i.properties,
            })),
          });
          if (new Set(keys).size < keys.length) {
            expect(answer.status).toBe(400);
            expect(answer.body.message).toMatch(/^Duplicate IDs found in batch input/);
            continue;
          }
          expect(answer.status).toBe(200);
          inputs.forEach((i, index) => {
            const key = keys[index]!;
            expect(answer.body.results[index].new).toBe(!model.has(key));
            const held = model.get(key) ?? new Map<string, string>();
            for (const [name, v] of Object.entries(i.properties)) {
              if (v === '') held.delete(name);
              else held.set(name, v);
            }
            model.set(key, held);
          });
        }
        for (const [key, held] of model) {
          const record = hs.findBy('contacts', 'email', key.toUpperCase());
          expect(record?.properties.email).toBe(key);
          for (const name of FIELDS) expect(record?.properties[name]).toBe(held.get(name));
        }
        const stored = hs.records('contacts').filter((r) => r.properties.email?.endsWith(`@${domain}`));
        expect(stored).toHaveLength(model.size);
      }),
      { numRuns: 40 },
    );
  });
});
