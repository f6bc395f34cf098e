/**
 * Issue 43 part 6: a token answer's `instance_url` is where every later call carries the session token, so
 * it is held to the login URL's rules before any token is sent: https (plain http only to the login URL's own
 * host, which passed the https rule), no credentials, inside the login host's domain unless configured.
 * Real sockets: a token endpoint and a plain-http "elsewhere" that counts what reaches it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNCOUNTED } from '../../../src/destinations/crm/crm-counters.js';
import { queryPageSchema } from '../../../src/destinations/salesforce/salesforce-answer.js';
import {
  createSalesforceAuth,
  instanceUrlProblem,
} from '../../../src/destinations/salesforce/salesforce-auth.js';
import { createSalesforceClient } from '../../../src/destinations/salesforce/salesforce-client.js';
import { CrmError } from '../../../src/errors.js';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

let elsewhereRequests = 0;
let elsewhereAuthorization: string | undefined;
let instanceUrl = '';
const elsewhere = createServer((req, res) => {
  elsewhereRequests += 1;
  elsewhereAuthorization = req.headers.authorization;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"totalSize":0,"done":true,"records":[]}');
});
const login = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ access_token: '00Dsecret!token', instance_url: instanceUrl, token_type: 'Bearer' }),
    );
  });
});
let loginUrl = '';
let elsewherePort = 0;

beforeAll(async () => {
  loginUrl = `http://127.0.0.1:${await listen(login)}`;
  elsewherePort = await listen(elsewhere);
});
afterAll(async () => {
  login.closeAllConnections();
  elsewhere.closeAllConnections();
  await new Promise((resolve) => login.close(resolve));
  await new Promise((resolve) => elsewhere.close(resolve));
});

function client() {
  const auth = createSalesforceAuth({
    loginUrl,
    credentials: { grant: 'client_credentials', clientId: 'id', clientSecret: 'secret' },
    source: 'SF_CLIENT_ID and SF_CLIENT_SECRET',
    fetch: globalThis.fetch,
    now: Date.now,
  });
  return createSalesforceClient({
    auth,
    apiVersion: '62.0',
    maxShare: 0.5,
    credentials: 'SF_CLIENT_ID and SF_CLIENT_SECRET',
    fetch: globalThis.fetch,
    now: Date.now,
    counter: UNCOUNTED,
  });
}

describe('Salesforce instance_url', () => {
  it('sends no request, and no token, to a plain-http instance elsewhere: the destination pauses', async () => {
    // `localhost` is another host than the login URL's `127.0.0.1`: plain http to it is not the login's rule.
    instanceUrl = `http://localhost:${elsewherePort}`;
    elsewhereRequests = 0;
    const error = await client()
      .json(
        queryPageSchema,
        { method: 'GET', path: 'query?q=SELECT+Id+FROM+Contact' },
        AbortSignal.timeout(10_000),
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).trouble.kind).toBe('pause');
    expect((error as CrmError).message).toMatch(/instance_url .*not https/);
    expect((error as CrmError).message).not.toContain('00Dsecret');
    expect(elsewhereRequests).toBe(0);
    expect(elsewhereAuthorization).toBeUndefined();
  });

  it("serves an instance on the login URL's own host (the stand-in's case)", async () => {
    instanceUrl = `http://127.0.0.1:${elsewherePort}`;
    elsewhereRequests = 0;
    const page = await client().json(
      queryPageSchema,
      { method: 'GET', path: 'query?q=SELECT+Id+FROM+Contact' },
      AbortSignal.timeout(10_000),
    );
    expect(page.records).toEqual([]);
    expect(elsewhereRequests).toBe(1);
  });

  it('holds https instances to the login host domain unless one is configured', () => {
    const my = { loginUrl: 'https://acme.my.salesforce.com' };
    expect(instanceUrlProblem('https://acme.my.salesforce.com', my)).toBeUndefined();
    expect(
      instanceUrlProblem('https://na1.salesforce.com/', { loginUrl: 'https://login.salesforce.com' }),
    ).toBeUndefined();
    expect(instanceUrlProblem('https://evil.example.com', my)).toMatch(/outside salesforce\.com/);
    expect(instanceUrlProblem('https://salesforce.com.evil.example', my)).toMatch(/outside/);
    expect(instanceUrlProblem('http://acme.my.salesforce.com', my)).toMatch(/not https/);
    expect(instanceUrlProblem('https://user:pw@acme.my.salesforce.com', my)).toMatch(/credentials/);
    expect(instanceUrlProblem('not a url', my)).toMatch(/not a URL/);
    expect(
      instanceUrlProblem('https://acme.my.salesforce.mil', { ...my, instanceDomain: 'salesforce.mil' }),
    ).toBeUndefined();
  });
});
