/**
 * The `hubspot` destination: the CRM core (`crm/`) with the HubSpot adapter. Verified companies and
 * persons upserted into HubSpot's CRM by key, in batches of up to 100 events, paced across every process
 * working for the destination (shared-pace.ts), fill-empty or overwrite per field; `setup` creates the
 * custom properties and adopts the records the portal holds.
 */
import { z } from 'zod';
import { destinationNameSchema, envRefSchema, tokenSecret } from '../config-fields.js';
import { crmConfigShape, crmDispatchSettings, crmSyncSettings } from '../crm/crm-config.js';
import { type CallCounter, CrmCounters, UNCOUNTED } from '../crm/crm-counters.js';
import { type CrmDestination, createCrmDestination, type SetupPortal } from '../crm/crm-destination.js';
import type { SyncSettings } from '../crm/sync-batch.js';
import { type ContactReaderDeps, type DestinationDeps, defineDestinationType } from '../destination-type.js';
import { createSharedPace } from '../shared-pace.js';
import { createHubSpotAdapter } from './hubspot-adapter.js';
import {
  createHubSpotClient,
  DEFAULT_HUBSPOT_BASE_URL,
  HUBSPOT_BATCH_LIMIT,
  type HubSpotClient,
  SEARCH_RATE,
} from './hubspot-client.js';
import { hubspotOwnerEmail } from './hubspot-owners.js';
import { HUBSPOT_SHAPE, MOVED_FIELDS } from './hubspot-records.js';
import { createHubSpotTasks } from './hubspot-tasks.js';
import { createHubSpotContactReader, HUBSPOT_SOURCE } from './read-contacts.js';
import { RollingWindow } from './rolling-window.js';
import { setupPortal as setUpPortal } from './setup-portal.js';

/** Default pace: under the smallest account's 100 requests per 10 s, with room for other apps. */
export const DEFAULT_HUBSPOT_RATE = '90/10s';

const propertyName = z.string().regex(/^[a-z][a-z0-9_]{0,99}$/, 'must be a HubSpot property name');

const hubspotSchema = z.strictObject({
  name: destinationNameSchema,
  type: z.literal('hubspot'),
  // Only from the environment: a HubSpot token in a file would be a secret in the tree.
  token: envRefSchema,
  base_url: z
    .string()
    .refine(
      (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
      'must be an http(s) URL',
    )
    .optional(),
  company_key: propertyName.default('hooksync_domain'),
  contact_key: propertyName.default('hooksync_linkedin_url'),
  ...crmConfigShape(propertyName, DEFAULT_HUBSPOT_RATE),
});

/** A `hubspot` destination as configured (the token still as its environment variable's name). */
export type HubSpotDestinationConfig = z.output<typeof hubspotSchema>;

/** A HubSpot destination: a CRM destination, with setup. */
export type HubSpotDestination = CrmDestination & { readonly setupPortal: SetupPortal };

/** Sync settings from a config. */
export function syncSettingsOf(config: HubSpotDestinationConfig): SyncSettings {
  return crmSyncSettings(
    config,
    { companyKey: config.company_key, contactKey: config.contact_key },
    MOVED_FIELDS,
  );
}

/** The destination's client: its token, on its pace shared by every process (`deps.db`'s destination_pace). */
function clientOf(
  config: HubSpotDestinationConfig,
  secrets: readonly string[],
  deps: ContactReaderDeps,
  counter: CallCounter,
  sendOnce?: readonly string[],
): HubSpotClient {
  return createHubSpotClient({
    baseUrl: config.base_url ?? DEFAULT_HUBSPOT_BASE_URL,
    token: secrets[0]!,
    tokenEnv: config.token.env,
    fetch: deps.fetch,
    pace: createSharedPace(deps.db, config.name, config.rate, deps.now),
    searchPace: new RollingWindow(SEARCH_RATE, deps.now),
    now: deps.now,
    counter,
    sendOnce,
    answers: deps.answers,
  });
}

function createHubSpotDestination(
  config: HubSpotDestinationConfig,
  secrets: readonly string[],
  deps: DestinationDeps,
): HubSpotDestination {
  const counters = new CrmCounters(config.name, deps);
  const client = clientOf(
    config,
    secrets,
    { db: deps.database.db, fetch: deps.fetch, now: deps.now, answers: deps.answers },
    counters,
  );
  const settings = syncSettingsOf(config);
  const destination = createCrmDestination({
    name: config.name,
    adapter: createHubSpotAdapter(client),
    counters,
    templates: { companies: 'hubspot-companies', contacts: 'hubspot-contacts' },
    shape: HUBSPOT_SHAPE,
    settings,
    setup: ({ templates, dryRun, signal }) =>
      setUpPortal({ client, db: deps.database.db, templates, keys: settings.keys, dryRun, signal }),
    deps,
  });
  const { setupPortal } = destination;
  if (setupPortal === undefined) throw new TypeError('a HubSpot destination has a setup');
  return { ...destination, setupPortal };
}

/** A watch's reader of the portal's contacts: a client of the destination's own, on its shared pace. */
function contactReaderOf(config: HubSpotDestinationConfig, secrets: readonly string[]) {
  return createHubSpotContactReader((deps) => clientOf(config, secrets, deps, UNCOUNTED));
}

/** A watch's `task` play: the tasks role on a client of its own that sends each POST once. */
function crmTasksOf(config: HubSpotDestinationConfig, secrets: readonly string[]) {
  return (deps: ContactReaderDeps) =>
    createHubSpotTasks(clientOf(config, secrets, deps, UNCOUNTED, ['POST']));
}

/** The `hubspot` destination type. */
export const HUBSPOT_DESTINATION = defineDestinationType({
  type: 'hubspot',
  resolveSecrets: tokenSecret,
  schema: hubspotSchema,
  dispatchSettings: (config) => crmDispatchSettings(config, HUBSPOT_BATCH_LIMIT),
  create: createHubSpotDestination,
  watchSource: { ...HUBSPOT_SOURCE, reader: contactReaderOf },
  ownerLookup: (config, secrets) => (deps) => {
    const client = clientOf(config, secrets, deps, UNCOUNTED);
    return (fields, signal) => hubspotOwnerEmail(client, fields, signal);
  },
  crmTasks: crmTasksOf,
});
