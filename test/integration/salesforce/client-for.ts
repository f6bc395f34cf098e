/**
 * A Salesforce client for a stand-in, as the destination builds it, with a counter tests can read.
 */
import type { CallCounter } from '../../../src/destinations/crm/crm-counters.js';
import {
  createSalesforceAuth,
  type SalesforceCredentials,
} from '../../../src/destinations/salesforce/salesforce-auth.js';
import {
  createSalesforceClient,
  salesforceRetryPolicy,
} from '../../../src/destinations/salesforce/salesforce-client.js';
import type { SalesforceStandIn } from '../../helpers/salesforce/stand-in.js';

/** A counter that keeps what it is told. */
export interface TestCounter extends CallCounter {
  calls: number;
  limited: Record<string, number>;
  remaining: number | undefined;
}

function testCounter(): TestCounter {
  const counter: TestCounter = {
    calls: 0,
    limited: {},
    remaining: undefined,
    call: () => {
      counter.calls += 1;
    },
    rateLimited: (policy) => {
      counter.limited[policy] = (counter.limited[policy] ?? 0) + 1;
    },
    dailyRemaining: (left) => {
      counter.remaining = left;
    },
  };
  return counter;
}

/** The client (retries fast: 2 of 1-5 ms), its sessions and its counter. */
export function clientFor(
  sf: SalesforceStandIn,
  options: {
    now?: () => number;
    maxShare?: number;
    credentials?: SalesforceCredentials;
    maxAnswerBytes?: number;
  } = {},
) {
  const now = options.now ?? Date.now;
  const auth = createSalesforceAuth({
    loginUrl: sf.url,
    credentials: options.credentials ?? {
      grant: 'client_credentials',
      clientId: sf.clientId,
      clientSecret: sf.clientSecret,
    },
    source: 'SF_CLIENT_ID, SF_CLIENT_SECRET',
    fetch,
    now,
  });
  const counter = testCounter();
  const client = createSalesforceClient({
    auth,
    apiVersion: '62.0',
    maxShare: options.maxShare ?? 0.5,
    credentials: 'SF_CLIENT_ID, SF_CLIENT_SECRET',
    fetch,
    now,
    counter,
    retry: salesforceRetryPolicy({ retries: 2, minDelayMs: 1, maxDelayMs: 5 }),
    ...(options.maxAnswerBytes === undefined ? {} : { maxAnswerBytes: options.maxAnswerBytes }),
  });
  return { auth, counter, client };
}
