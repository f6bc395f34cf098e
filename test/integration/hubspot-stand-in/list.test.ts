/**
 * The stand-in's list endpoint and the test's hands on a portal (edit, archive, primary company), over real
 * HTTP: id order, the limit, `after` paging to the end, archived records gone from lists, search and reads.
 */
import { describe, expect, it } from 'vitest';
import { call, standInsClosedAfterEach } from './http.js';

const start = standInsClosedAfterEach();

describe('GET /crm/v3/objects/contacts', () => {
  it('lists every contact in id order, paged with after, the asked properties only', async () => {
    const hs = await start();
    const ids = Array.from({ length: 7 }, (_, i) =>
      hs.seed('contacts', { email: `p${i}@example.com`, firstname: `P${i}`, lastname: 'X' }),
    );
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const answer = await call(
        hs,
        'GET',
        `/crm/v3/objects/contacts?limit=3&properties=email${after === undefined ? '' : `&after=${after}`}`,
      );
      expect(answer.status).toBe(200);
      pages += 1;
      for (const record of answer.body.results) {
        seen.push(record.id);
        expect(record.properties.email).toMatch(/@example\.com$/);
        expect(record.properties.firstname).toBeUndefined();
      }
      after = answer.body.paging?.next?.after;
    } while (after !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
  });

  it('refuses a limit past 100', async () => {
    const hs = await start();
    expect((await call(hs, 'GET', '/crm/v3/objects/contacts?limit=101')).status).toBe(400);
  });

  it('an archived contact is gone from the list, search and its associations; an edit is seen', async () => {
    const hs = await start();
    const company = hs.seed('companies', { name: 'Acme', domain: 'acme.com' });
    const kept = hs.seed('contacts', { email: 'kept@acme.com', lifecyclestage: 'customer' });
    const gone = hs.seed('contacts', { email: 'gone@acme.com', lifecyclestage: 'customer' });
    hs.associatePrimary(gone, company);
    hs.associatePrimary(kept, company);
    hs.archive('contacts', gone);
    hs.edit('contacts', kept, { firstname: 'Kay' });
    const listed = await call(hs, 'GET', '/crm/v3/objects/contacts?properties=firstname');
    expect(listed.body.results.map((r: { id: string }) => r.id)).toEqual([kept]);
    expect(listed.body.results[0].properties.firstname).toBe('Kay');
    const found = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'lifecyclestage', operator: 'EQ', value: 'customer' }] }],
    });
    expect(found.body.results.map((r: { id: string }) => r.id)).toEqual([kept]);
    expect(hs.associations().filter((a) => a.contactId === gone)).toEqual([]);
    expect(hs.associations()).toContainEqual({ contactId: kept, companyId: company, typeId: 1 });
  });
});
