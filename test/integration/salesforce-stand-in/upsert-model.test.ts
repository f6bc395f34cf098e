/**
 * Random sequences of collections upserts over real HTTP, checked against a plain model of Salesforce's
 * documented semantics (shared/docs/salesforce-api.md §1.2, §2, §7): a case-insensitive unique external id
 * matches whatever its case, a key named twice in one call fails those records and writes nothing for them,
 * sent values overwrite, null clears, omitted fields stay, results come in order with `created`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SalesforceStandIn, startSalesforceStandIn } from '../../helpers/salesforce/stand-in.js';
import { api, login } from './http.js';

let sf: SalesforceStandIn;
let token: string;
beforeAll(async () => {
  sf = await startSalesforceStandIn({ setUp: true, dailyLimit: 1_000_000 });
  token = await login(sf);
});
afterAll(() => sf.close());

const FIELDS = ['Title', 'Department', 'MailingCity'] as const;
const input = fc.record({
  key: fc.constantFrom('ada', 'bob', 'cy'),
  upper: fc.boolean(),
  values: fc.dictionary(fc.constantFrom(...FIELDS), fc.constantFrom<string | null>(null, 'x', 'y', 'Zoë'), {
    maxKeys: 3,
  }),
});
const call = fc.array(input, { minLength: 1, maxLength: 4 });

describe('collections upsert against a model', () => {
  it('keeps the documented semantics for any sequence of calls', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 4 }), async (calls) => {
        run += 1;
        const model = new Map<string, Record<string, string | null>>();
        for (const records of calls) {
          const keys = records.map((r) => `${r.key}-${run}`);
          const answer = await api(sf, token, 'PATCH', 'composite/sobjects/Contact/Hooksync_Person_Id__c', {
            allOrNone: false,
            records: records.map((r, i) => ({
              attributes: { type: 'Contact' },
              Hooksync_Person_Id__c: r.upper ? keys[i]!.toUpperCase() : keys[i],
              LastName: 'L',
              ...r.values,
            })),
          });
          expect(answer.status).toBe(200);
          records.forEach((r, i) => {
            const key = keys[i]!;
            const result = answer.body[i];
            if (keys.filter((k) => k === key).length > 1) {
              expect(result.errors[0].statusCode).toBe('DUPLICATE_VALUE');
              return;
            }
            expect(result).toMatchObject({ success: true, created: !model.has(key) });
            model.set(key, { ...(model.get(key) ?? {}), ...r.values });
          });
        }
        for (const [key, values] of model) {
          const [record] = sf.findBy('Contact', 'Hooksync_Person_Id__c', key);
          for (const name of FIELDS) expect(record![name] ?? null).toBe(values[name] ?? null);
        }
        expect(
          sf
            .records('Contact')
            .filter((r) => String(r.Hooksync_Person_Id__c).toLowerCase().endsWith(`-${run}`)),
        ).toHaveLength(model.size);
      }),
      { numRuns: 40 },
    );
  });
});
