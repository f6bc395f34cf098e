/**
 * Issue 43 part 1, the first row of its table: a Salesforce watch source answering `done:false` pages
 * forever. The reader stops a chunk at its LIMIT (2,000 contacts) and refuses a page longer than a query's,
 * instead of keeping every page until the process runs out of memory. Real sockets: a token endpoint and a
 * query endpoint written here from the REST API's shapes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNCOUNTED } from '../../../src/destinations/crm/crm-counters.js';
import { createSalesforceContactReader } from '../../../src/destinations/salesforce/query-contacts.js';
import { createSalesforceAuth } from '../../../src/destinations/salesforce/salesforce-auth.js';
import { createSalesforceClient } from '../../../src/destinations/salesforce/salesforce-client.js';
import { CrmError } from '../../../src/errors.js';

let mode: 'endless' | 'long-page' = 'endless';
let queries = 0;
let url = '';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if ((req.url ?? '').includes('/oauth2/token')) {
      res.end(JSON.stringify({ access_token: 'tok', instance_url: url, token_type: 'Bearer' }));
      return;
    }
    queries += 1;
    const size = mode === 'endless' ? 2_000 : 2_001;
    const records = Array.from({ length: size }, (_, k) => ({
      attributes: { type: 'Contact' },
      Id: `003${String(queries * 10_000 + k).padStart(12, '0')}`,
      Email: `c${k}@acme.com`,
    }));
    res.end(
      JSON.stringify({
        totalSize: 1_000_000_000,
        done: false,
        nextRecordsUrl: `/services/data/v62.0/query/01gD0000002HU6KIAW-${queries * 2000}`,
        records,
      }),
    );
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function reader() {
  return createSalesforceContactReader(
    (deps) =>
      createSalesforceClient({
        auth: createSalesforceAuth({
          loginUrl: url,
          credentials: { grant: 'client_credentials', clientId: 'id', clientSecret: 'secret' },
          source: 'SF_CLIENT_ID and SF_CLIENT_SECRET',
          fetch: deps.fetch,
          now: deps.now,
        }),
        apiVersion: '62.0',
        maxShare: 1,
        credentials: 'SF_CLIENT_ID and SF_CLIENT_SECRET',
        fetch: deps.fetch,
        now: deps.now,
        counter: UNCOUNTED,
      }),
    { accountKey: 'Hooksync_Company_Id__c', linkedin: undefined },
  );
}

async function readAll(): Promise<{ rows: number; error: unknown }> {
  let rows = 0;
  try {
    const contacts = reader().contacts({ destination: 'sf', soql_where: 'Email != null' }, [], {
      db: undefined as never,
      now: Date.now,
      fetch: globalThis.fetch,
    });
    for await (const _ of contacts) rows += 1;
  } catch (error) {
    return { rows, error };
  }
  return { rows, error: undefined };
}

describe('a Salesforce source that pages forever', () => {
  it('stops a chunk at its LIMIT: two pages read, nothing yielded past them, the reading fails', async () => {
    mode = 'endless';
    queries = 0;
    const { rows, error } = await readAll();
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).trouble.kind).toBe('fail');
    expect((error as CrmError).message).toMatch(/more than the 2000 contacts/);
    expect(queries).toBe(2);
    expect(rows).toBe(0);
  });

  it('refuses a page longer than a query page at once', async () => {
    mode = 'long-page';
    queries = 0;
    const { error } = await readAll();
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).message).toMatch(/records: 2001 items/);
    expect(queries).toBeLessThanOrEqual(3);
  });
});
