/**
 * The `salesforce` destination: the CRM core (`crm/`) with the Salesforce adapter. Verified companies become
 * Accounts by their domain key, persons Contacts or Leads by their person key, in batches of up to 200
 * events, fill-empty or overwrite per field, within `max_share` of the org's rolling 24-hour allocation.
 */
import { loadTemplate } from '../../export/load-template.js';
import type { CrmAdapter } from '../crm/crm-adapter.js';
import { crmDispatchSettings, crmSyncSettings } from '../crm/crm-config.js';
import { type CallCounter, CrmCounters, UNCOUNTED } from '../crm/crm-counters.js';
import { type CrmDestination, createCrmDestination } from '../crm/crm-destination.js';
import type { CrmRetryPolicy } from '../crm/crm-retry.js';
import type { RecordShape } from '../crm/map-records.js';
import type { SyncSettings } from '../crm/sync-batch.js';
import { type ContactReaderDeps, type DestinationDeps, defineDestinationType } from '../destination-type.js';
import { bulkJobStore } from './bulk-ingest.js';
import { type LeadFields, leadFieldsOf } from './lead-fields.js';
import { createSalesforceContactReader, SALESFORCE_SOURCE } from './query-contacts.js';
import { createSalesforceAdapter } from './salesforce-adapter.js';
import { createSalesforceAuth, type SalesforceCredentials } from './salesforce-auth.js';
import { createSalesforceClient, type SalesforceClient, salesforceRetryPolicy } from './salesforce-client.js';
import {
  credentialSources,
  resolveSalesforceCredentials,
  type SalesforceDestinationConfig,
  salesforceSchema,
} from './salesforce-config.js';
import { salesforceOwnerEmail } from './salesforce-owners.js';
import { createSalesforceTasks } from './salesforce-tasks.js';
import { setupOrg } from './setup-org.js';
import { COLLECTION_LIMIT } from './write-collections.js';

/** The templates the destination maps with (the same as the import files'). */
export const SALESFORCE_TEMPLATES = {
  companies: 'salesforce-accounts',
  contacts: 'salesforce-contacts',
  leads: 'salesforce-leads',
} as const;

/** What a moved person's new job makes current (overwriting unless `fields` says otherwise). */
export const MOVED_FIELDS = ['Title', 'Current_Company__c'] as const;

/** The salesforce-* templates' columns the core reads. */
export const SALESFORCE_SHAPE: RecordShape = {
  // The Account key column (salesforce-accounts: the company's domain), normalized: files and API agree.
  domain: 'Hooksync_Company_Id__c',
  companyName: 'Name',
  // Never keyed by e-mail: Email is neither External ID nor Unique (§2).
  email: undefined,
  personId: 'Hooksync_Person_Id__c',
  linkedinUrl: 'LinkedIn_URL__c',
  firstName: 'FirstName',
  lastName: 'LastName',
  jobChangeStatus: 'Job_Change_Status__c',
  contactCompany: 'Current_Company__c',
  movedFields: MOVED_FIELDS,
  leftFields: ['Job_Change_Status__c'],
  // The carried Salesforce Id (custom_fields.sf_id, or the key `id_field` names): that record is updated.
  recordId: 'Id',
};

/** Events per attempt at most: a Bulk job's worth. */
export const MAX_LANE_BATCH = 10_000;

/**
 * Events the lane hands one attempt at most: twice the Bulk threshold (so a backlog above it reaches the
 * destination whole and goes in a Bulk job, while a smaller one is written 200 a call), at least one
 * collections call's worth, at most {@link MAX_LANE_BATCH}.
 */
export function laneBatchSize(config: Pick<SalesforceDestinationConfig, 'bulk_threshold'>): number {
  return Math.min(MAX_LANE_BATCH, Math.max(COLLECTION_LIMIT, 2 * config.bulk_threshold));
}

/** Sync settings from a config. */
export function syncSettingsOf(config: SalesforceDestinationConfig): SyncSettings {
  return crmSyncSettings(
    config,
    { companyKey: config.account_key, contactKey: config.person_key },
    MOVED_FIELDS,
  );
}

/** The destination's client: a session from its grant, within its `max_share` of the org's allocation. */
function clientOf(
  config: SalesforceDestinationConfig,
  credentials: SalesforceCredentials,
  deps: Pick<DestinationDeps, 'fetch' | 'now' | 'answers'>,
  counter: CallCounter,
  retry?: CrmRetryPolicy,
): SalesforceClient {
  const source = credentialSources(config);
  const auth = createSalesforceAuth({
    loginUrl: config.login_url,
    ...(config.instance_domain === undefined ? {} : { instanceDomain: config.instance_domain }),
    credentials,
    source,
    fetch: deps.fetch,
    now: deps.now,
  });
  return createSalesforceClient({
    auth,
    apiVersion: config.api_version,
    maxShare: config.max_share,
    credentials: source,
    fetch: deps.fetch,
    now: deps.now,
    counter,
    retry,
    answers: deps.answers,
  });
}

function createSalesforceDestination(
  config: SalesforceDestinationConfig,
  credentials: SalesforceCredentials,
  deps: DestinationDeps,
): CrmDestination {
  const counters = new CrmCounters(config.name, deps);
  const client = clientOf(config, credentials, deps, counters);
  let leadFields: Promise<LeadFields> | undefined;
  const adapter: CrmAdapter = {
    tasks: createSalesforceTasks(client, config.id_field),
    ...createSalesforceAdapter({
      client,
      accountKey: config.account_key,
      personKey: config.person_key,
      newPersons: config.new_persons,
      linkedinField:
        config.fields[SALESFORCE_SHAPE.linkedinUrl] === 'skip' ? undefined : SALESFORCE_SHAPE.linkedinUrl,
      bulk: {
        threshold: config.bulk_threshold,
        store: bulkJobStore(deps.database.db, config.name, deps.now),
      },
      leadFields: () => {
        leadFields ??= Promise.all([
          loadTemplate(SALESFORCE_TEMPLATES.contacts),
          loadTemplate(SALESFORCE_TEMPLATES.leads),
        ]).then(([contacts, leads]) => leadFieldsOf(contacts, leads));
        return leadFields;
      },
    }),
  };
  return createCrmDestination({
    name: config.name,
    adapter,
    counters,
    templates: SALESFORCE_TEMPLATES,
    shape: SALESFORCE_SHAPE,
    carriedIdKey: config.id_field,
    settings: syncSettingsOf(config),
    setup: async ({ templates, dryRun, signal }) =>
      setupOrg({
        client,
        adapter,
        db: deps.database.db,
        destination: config.name,
        templates,
        leads: await loadTemplate(SALESFORCE_TEMPLATES.leads),
        shape: SALESFORCE_SHAPE,
        accountKey: config.account_key,
        personKey: config.person_key,
        now: deps.now,
        dryRun,
        signal,
      }),
    deps,
  });
}

/** A watch's reader of the org's Contacts: its own session and client, within the same `max_share`. */
function contactReaderOf(config: SalesforceDestinationConfig, credentials: SalesforceCredentials) {
  const linkedin = SALESFORCE_SHAPE.linkedinUrl;
  return createSalesforceContactReader((deps) => clientOf(config, credentials, deps, UNCOUNTED), {
    accountKey: config.account_key,
    linkedin: linkedin !== undefined && config.fields[linkedin] !== 'skip' ? linkedin : undefined,
  });
}

/** A watch's `task` play: the tasks role on a client of its own that sends each POST once. */
function crmTasksOf(config: SalesforceDestinationConfig, credentials: SalesforceCredentials) {
  const retry: CrmRetryPolicy = { ...salesforceRetryPolicy(), sendOnce: ['POST'] };
  return (deps: ContactReaderDeps) =>
    createSalesforceTasks(clientOf(config, credentials, deps, UNCOUNTED, retry), config.id_field);
}

/** The `salesforce` destination type. */
export const SALESFORCE_DESTINATION = defineDestinationType({
  type: 'salesforce',
  resolveSecrets: resolveSalesforceCredentials,
  schema: salesforceSchema,
  // A collections call's worth of events goes at once; the lane batch is larger only to reach Bulk whole.
  dispatchSettings: (config) => crmDispatchSettings(config, laneBatchSize(config), COLLECTION_LIMIT),
  create: createSalesforceDestination,
  watchSource: { ...SALESFORCE_SOURCE, reader: contactReaderOf },
  ownerLookup: (config, credentials) => (deps) => {
    const client = clientOf(config, credentials, deps, UNCOUNTED);
    return (fields, signal) => salesforceOwnerEmail(client, config.id_field, fields, signal);
  },
  crmTasks: crmTasksOf,
});
