/**
 * What the Salesforce suites share: a `salesforce` destination entry logging in to the stand-in with the
 * client-credentials grant, and the environment its secrets are read from.
 */
import type { SalesforceStandIn } from '../../helpers/salesforce/stand-in.js';

/** The variables the client id and secret are read from, set to the stand-in's. */
export function salesforceSecrets(sf: SalesforceStandIn): Record<string, string> {
  return { SF_CLIENT_ID: sf.clientId, SF_CLIENT_SECRET: sf.clientSecret };
}

/** A `salesforce` destination entry (no name) against `sf`, with `extra` settings. */
export function salesforceEntry(
  sf: SalesforceStandIn,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: 'salesforce',
    login_url: sf.url,
    auth: {
      grant: 'client_credentials',
      client_id: { env: 'SF_CLIENT_ID' },
      client_secret: { env: 'SF_CLIENT_SECRET' },
    },
    ...extra,
  };
}
