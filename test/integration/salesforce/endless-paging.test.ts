/**
 * Issue 43 part 1, the first row of its table: a Salesforce watch source answering `done:false` pages
 * forever. The reader stops a chunk at its LIMIT (2,000 contacts) and refuses a page longer than a query's,
 * instead of keeping every page until the process runs out of memory. Real sockets: a token endpoint and a
 * query endpoint written here from the REST API's shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrmError } from '../../../src/errors.js';
import { type QueryEndpoint, readAllContacts, startQueryEndpoint } from './query-endpoint.js';

let mode: 'endless' | 'long-page' = 'endless';
let endpoint: QueryEndpoint;

beforeAll(async () => {
  endpoint = await startQueryEndpoint((query) => ({
    totalSize: 1_000_000_000,
    done: false,
    nextRecordsUrl: `/services/data/v62.0/query/01gD0000002HU6KIAW-${query * 2000}`,
    records: Array.from({ length: mode === 'endless' ? 2_000 : 2_001 }, (_, k) => ({
      attributes: { type: 'Contact' },
      Id: `003${String(query * 10_000 + k).padStart(12, '0')}`,
      Email: `c${k}@acme.com`,
    })),
  }));
});
afterAll(async () => {
  await endpoint?.close();
});

const readAll = () => readAllContacts(endpoint.url, []);

describe('a Salesforce source that pages forever', () => {
  it('stops a chunk at its LIMIT: two pages read, nothing yielded past them, the reading fails', async () => {
    mode = 'endless';
    endpoint.queries = 0;
    const { rows, error } = await readAll();
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).trouble.kind).toBe('fail');
    expect((error as CrmError).message).toMatch(/more than the 2000 contacts/);
    expect(endpoint.queries).toBe(2);
    expect(rows).toBe(0);
  });

  it('refuses a page longer than a query page at once', async () => {
    mode = 'long-page';
    endpoint.queries = 0;
    const { error } = await readAll();
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).message).toMatch(/records: 2001 items/);
    expect(endpoint.queries).toBeLessThanOrEqual(3);
  });
});
