/**
 * Issue 43 part 1: a watch's Salesforce source reads its pages within serve's memory plan. A query page of
 * ~1.5 MB (1,999 wide contacts, a size Salesforce may send) is read whole without a ceiling, and under a
 * 256 MiB ceiling, whose answer budget is 1 MiB, refused unread as the source's failure; the budget holds
 * nothing after either. Real sockets: a token endpoint and a query endpoint written here from the REST API's
 * shapes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerLimits } from '../../../src/client/answer-budget.js';
import { UNCOUNTED } from '../../../src/destinations/crm/crm-counters.js';
import { createSalesforceContactReader } from '../../../src/destinations/salesforce/query-contacts.js';
import { createSalesforceAuth } from '../../../src/destinations/salesforce/salesforce-auth.js';
import { createSalesforceClient } from '../../../src/destinations/salesforce/salesforce-client.js';
import { CrmError } from '../../../src/errors.js';
import { planAnswerLimits, planMemory } from '../../../src/server/memory-plan.js';

const MIB = 1024 * 1024;
let url = '';
let queries = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if ((req.url ?? '').includes('/oauth2/token')) {
      res.end(JSON.stringify({ access_token: 'tok', instance_url: url, token_type: 'Bearer' }));
      return;
    }
    queries += 1;
    const records = Array.from({ length: 1_999 }, (_, k) => ({
      attributes: { type: 'Contact' },
      Id: `003${String(k).padStart(12, '0')}`,
      Email: `c${k}@acme.com`,
      LastName: `L${'n'.repeat(700)}`,
    }));
    res.end(JSON.stringify({ totalSize: 1_999, done: true, records }));
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

/** The reader as the destination type builds it: its client takes the deps' answer limits. */
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
        answers: deps.answers,
      }),
    { accountKey: 'Hooksync_Company_Id__c', linkedin: undefined },
  );
}

async function readAll(answers: AnswerLimits): Promise<{ rows: number; error: unknown }> {
  let rows = 0;
  try {
    const contacts = reader().contacts({ destination: 'sf', soql_where: 'Email != null' }, ['LastName'], {
      db: undefined as never,
      now: Date.now,
      fetch: globalThis.fetch,
      answers,
    });
    for await (const _ of contacts) rows += 1;
  } catch (error) {
    return { rows, error };
  }
  return { rows, error: undefined };
}

describe('a Salesforce source under serve’s answer limits', () => {
  it('without a ceiling reads a 1.5 MB page whole, through the one budget', async () => {
    const answers = planAnswerLimits(planMemory(undefined), {});
    const { rows, error } = await readAll(answers);
    expect(error).toBeUndefined();
    expect(rows).toBe(1_999);
    expect(answers.budget.peak).toBeGreaterThan(MIB);
    expect(answers.budget.inUse).toBe(0);
  });

  it('under 256 MiB refuses the same page unread: the source fails, naming the cap', async () => {
    const plan = planMemory(256 * MIB);
    const answers = planAnswerLimits(plan, plan.clientLimits);
    queries = 0;
    const { rows, error } = await readAll(answers);
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).message).toMatch(/larger than 1048576 bytes/);
    expect(rows).toBe(0);
    expect(queries).toBeGreaterThanOrEqual(1);
    expect(answers.budget.inUse).toBe(0);
  });
});
