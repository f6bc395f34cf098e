/**
 * Calls the Salesforce stand-in the way a client does: a token from the client credentials grant, then real
 * HTTP with fetch, Bearer token, JSON (or CSV) both ways.
 */
import { afterEach } from 'vitest';
import {
  type SalesforceStandIn,
  type SalesforceStandInOptions,
  startSalesforceStandIn,
} from '../../helpers/salesforce/stand-in.js';

/** The API version the tests speak. */
export const V = 'v62.0';

/** An answer as a client sees it. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read Salesforce's JSON answers field by field.
  body: any;
}

async function read(response: Response): Promise<HttpAnswer> {
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json') ?? false;
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: json && text !== '' ? JSON.parse(text) : undefined,
  };
}

/** POSTs a form to the token endpoint. */
export async function grant(
  standIn: Pick<SalesforceStandIn, 'url'>,
  form: Record<string, string>,
): Promise<HttpAnswer> {
  return read(
    await fetch(`${standIn.url}/services/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    }),
  );
}

/** A session token by client credentials. */
export async function login(standIn: SalesforceStandIn): Promise<string> {
  const answer = await grant(standIn, {
    grant_type: 'client_credentials',
    client_id: standIn.clientId,
    client_secret: standIn.clientSecret,
  });
  if (answer.status !== 200) throw new Error(`login: ${answer.text}`);
  return answer.body.access_token as string;
}

/** `method /services/data/v62.0/<path>` with a JSON body, or CSV when `body` is a string. */
export async function api(
  standIn: Pick<SalesforceStandIn, 'url'>,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const all: Record<string, string> = { ...headers };
  if (token !== null) all.authorization = `Bearer ${token}`;
  if (typeof body === 'string') all['content-type'] = 'text/csv';
  else if (body !== undefined) all['content-type'] = 'application/json';
  return read(
    await fetch(`${standIn.url}${path.startsWith('/services') ? path : `/services/data/${V}/${path}`}`, {
      method,
      headers: all,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/** The HubSpot stand-in tests' fake clock (noon UTC on a fixed day, moved by `advance`). */
export { fakeClock } from '../hubspot-stand-in/http.js';

/** A starter for one test file: every stand-in it starts is closed after the test. */
export function standInsClosedAfterEach(): (
  options?: SalesforceStandInOptions,
) => Promise<SalesforceStandIn> {
  const open: SalesforceStandIn[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((standIn) => standIn.close()));
  });
  return async (options) => {
    const standIn = await startSalesforceStandIn(options);
    open.push(standIn);
    return standIn;
  };
}
