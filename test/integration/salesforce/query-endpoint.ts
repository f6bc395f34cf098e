/**
 * A Salesforce token endpoint and query endpoint on one real socket, written from the REST API's shapes, and
 * a watch source's contact reader built over it as the destination type builds it: for the source's
 * answer-shape tests (endless paging, answer limits).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnswerLimits } from '../../../src/client/answer-budget.js';
import { UNCOUNTED } from '../../../src/destinations/crm/crm-counters.js';
import { createSalesforceContactReader } from '../../../src/destinations/salesforce/query-contacts.js';
import { createSalesforceAuth } from '../../../src/destinations/salesforce/salesforce-auth.js';
import { createSalesforceClient } from '../../../src/destinations/salesforce/salesforce-client.js';

/** The endpoint: its URL, the queries it has answered, and `close()`. */
export interface QueryEndpoint {
  readonly url: string;
  /** Query pages answered so far (token requests not counted); settable to start a case from 0. */
  queries: number;
  close(): Promise<void>;
}

/** Starts the endpoint; each query (the n-th, from 1) is answered 200 with `page(n)` as JSON. */
export async function startQueryEndpoint(page: (query: number) => unknown): Promise<QueryEndpoint> {
  const endpoint = { url: '', queries: 0, close: async () => {} };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if ((req.url ?? '').includes('/oauth2/token')) {
        res.end(JSON.stringify({ access_token: 'tok', instance_url: endpoint.url, token_type: 'Bearer' }));
        return;
      }
      endpoint.queries += 1;
      res.end(JSON.stringify(page(endpoint.queries)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  endpoint.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return endpoint;
}

/** Reads every contact the source yields for `fields` (under `answers` when given): the count, or the failure. */
export async function readAllContacts(
  url: string,
  fields: string[],
  answers?: AnswerLimits,
): Promise<{ rows: number; error: unknown }> {
  const reader = createSalesforceContactReader(
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
        answers: deps.answers,
      }),
    { accountKey: 'Hooksync_Company_Id__c', linkedin: undefined },
  );
  let rows = 0;
  try {
    const contacts = reader.contacts({ destination: 'sf', soql_where: 'Email != null' }, fields, {
      db: undefined as never,
      now: Date.now,
      fetch: globalThis.fetch,
      ...(answers ? { answers } : {}),
    });
    for await (const _ of contacts) rows += 1;
  } catch (error) {
    return { rows, error };
  }
  return { rows, error: undefined };
}
