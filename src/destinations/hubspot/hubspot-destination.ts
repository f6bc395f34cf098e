/**
 * The `hubspot` destination: verified companies and persons upserted into HubSpot's CRM by key, in batches
 * of up to 100 events (a short linger gathers them), paced across every process working for the destination
 * (shared-pace.ts), fill-empty or overwrite per field. A 429 defers every pending event of the destination (so every replica waits);
 * 401/403 pause it until resumed; a record HubSpot refuses fails only its events.
 */
import { z } from 'zod';
import { destinationNameSchema, durationSchema, kindsSchema, rateSchema } from '../config-fields.js';
import { recordCounters } from '../destination-counters.js';
import type {
  AttemptResult,
  DestinationDeps,
  DestinationType,
  OutboxDelivery,
  OutboxDestination,
} from '../destination-type.js';
import { deferPendingEvents } from '../outbox.js';
import { createSharedPace } from '../shared-pace.js';
import { DEFAULT_RETRY_SCHEDULE } from '../webhook-destination.js';
import { whenUnlocked } from '../when-unlocked.js';
import type { PropertyDefinition } from './check-values.js';
import {
  createHubSpotClient,
  DEFAULT_HUBSPOT_BASE_URL,
  HUBSPOT_BATCH_LIMIT,
  type HubSpotCallStats,
  type HubSpotClient,
  HubSpotError,
  SEARCH_RATE,
} from './hubspot-client.js';
import { type HubSpotTemplates, hubSpotRows, loadHubSpotTemplates } from './hubspot-rows.js';
import { mapRecords } from './map-records.js';
import { RollingWindow } from './rolling-window.js';
import { type SetupReport, setupPortal } from './setup-portal.js';
import { type SyncReport, type SyncSettings, syncBatch } from './sync-batch.js';

/** The counter each record outcome adds to (after its object: companies_created, contacts_failed, ...). */
const RECORD_COUNTERS = { create: 'created', update: 'updated', skip: 'skipped', failed: 'failed' } as const;

/** Default pace: under the smallest account's 100 requests per 10 s, with room for other apps. */
export const DEFAULT_HUBSPOT_RATE = '90/10s';
/** How long the lane waits for more events before sending a batch smaller than 100. */
export const DEFAULT_HUBSPOT_LINGER_MS = 500;
/** One batch is several paced calls (reads, upserts, associations): its attempt gets this long. */
export const DEFAULT_HUBSPOT_TIMEOUT_MS = 120_000;
/** Property definitions are read again after this long (a property created meanwhile is seen). */
export const DEFINITIONS_TTL_MS = 600_000;

const propertyName = z.string().regex(/^[a-z][a-z0-9_]{0,99}$/, 'must be a HubSpot property name');
const fieldPolicy = z.enum(['overwrite', 'fill-empty', 'skip']);

const hubspotSchema = z.strictObject({
  name: destinationNameSchema,
  type: z.literal('hubspot'),
  // Only from the environment: a HubSpot token in a file would be a secret in the tree.
  token: z.strictObject({
    env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
  }),
  base_url: z
    .string()
    .refine(
      (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
      'must be an http(s) URL',
    )
    .optional(),
  write: z.enum(['fill-empty', 'overwrite']).default('fill-empty'),
  fields: z.record(propertyName, fieldPolicy).default({}),
  company_key: propertyName.default('hooksync_domain'),
  contact_key: propertyName.default('hooksync_linkedin_url'),
  rate: rateSchema.default(rateSchema.parse(DEFAULT_HUBSPOT_RATE)),
  kinds: kindsSchema,
  timeout: durationSchema.optional(),
  retry: z.strictObject({ schedule: z.array(durationSchema).min(1).max(50) }).optional(),
  linger: durationSchema.optional(),
});

/** A `hubspot` destination as configured (the token still as its environment variable's name). */
export type HubSpotDestinationConfig = z.output<typeof hubspotSchema>;

/** What a HubSpot destination offers beyond the outbox interface: the dry run, and its counters. */
export interface HubSpotDestination extends OutboxDestination {
  /** Reads only: what a batch of deliveries (at most 100) would write. */
  dryRun(deliveries: readonly OutboxDelivery[], signal: AbortSignal): Promise<SyncReport>;
  /** `destinations setup`: custom properties and adoption (see setup-portal.ts). */
  setupPortal(options: { dryRun: boolean; signal: AbortSignal }): Promise<SetupReport>;
}

/** Sync settings from a config. */
export function syncSettingsOf(config: HubSpotDestinationConfig): SyncSettings {
  return {
    keys: { companyKey: config.company_key, contactKey: config.contact_key },
    write: config.write,
    fields: config.fields,
  };
}

function createDefinitions(client: HubSpotClient, now: () => number) {
  const cache = new Map<
    string,
    { at: number; value: Promise<ReadonlyMap<string, PropertyDefinition> | undefined> }
  >();
  return (object: 'companies' | 'contacts', signal: AbortSignal) => {
    const held = cache.get(object);
    if (held !== undefined && now() - held.at < DEFINITIONS_TTL_MS) return held.value;
    const value = client
      .request('GET', `/crm/v3/properties/${object}`, undefined, signal)
      .then((answer) => {
        const results = (answer.body as { results?: PropertyDefinition[] } | null)?.results ?? [];
        return new Map(results.map((definition) => [definition.name, definition]));
      })
      .catch((error: unknown) => {
        cache.delete(object);
        // Without the schema scope values go unchecked, as in a file; anything else is the batch's trouble.
        if (error instanceof HubSpotError && error.status === 403) return undefined;
        throw error;
      });
    cache.set(object, { at: now(), value });
    return value;
  };
}

function createHubSpotDestination(
  config: HubSpotDestinationConfig,
  secrets: readonly string[],
  deps: DestinationDeps,
): HubSpotDestination {
  // Since the last flush into destination_counters.
  const stats: HubSpotCallStats = { calls: 0, rateLimited: {}, dailyRemaining: undefined };
  const flush = async (records: SyncReport['records'] = []) => {
    const increments: Record<string, number> = { api_calls: stats.calls };
    for (const [policy, count] of Object.entries(stats.rateLimited))
      increments[`rate_limited_${policy.toLowerCase()}`] = count;
    for (const record of records) {
      const name = `${record.object}_${RECORD_COUNTERS[record.action]}`;
      increments[name] = (increments[name] ?? 0) + 1;
    }
    const gauges: Record<string, number> =
      stats.dailyRemaining === undefined ? {} : { daily_remaining: stats.dailyRemaining };
    stats.calls = 0;
    stats.rateLimited = {};
    stats.dailyRemaining = undefined;
    try {
      await whenUnlocked(() =>
        recordCounters(
          deps.database.db,
          config.name,
          { increments, gauges },
          new Date(deps.now()).toISOString(),
        ),
      );
    } catch (error) {
      deps.logger.warn({ destination: config.name, err: error }, 'could not record the HubSpot counters');
    }
  };
  const client = createHubSpotClient({
    baseUrl: config.base_url ?? DEFAULT_HUBSPOT_BASE_URL,
    token: secrets[0]!,
    tokenEnv: config.token.env,
    fetch: deps.fetch,
    pace: createSharedPace(deps.database.db, config.name, config.rate, deps.now),
    searchPace: new RollingWindow(SEARCH_RATE, deps.now),
    now: deps.now,
    stats,
  });
  const definitions = createDefinitions(client, deps.now);
  const settings = syncSettingsOf(config);
  let templates: Promise<HubSpotTemplates> | undefined;
  const run = async (deliveries: readonly OutboxDelivery[], signal: AbortSignal, dryRun: boolean) => {
    templates ??= loadHubSpotTemplates();
    const loaded = await templates;
    const rows = [];
    for (const [event, delivery] of deliveries.entries()) {
      rows.push({ event, ...(await hubSpotRows(deps.database.db, loaded, delivery)) });
    }
    return syncBatch({
      client,
      batch: mapRecords(rows, settings.keys),
      settings,
      definitions: (object) => definitions(object, signal),
      dryRun,
      signal,
    });
  };
  const trouble = async (error: unknown): Promise<AttemptResult> => {
    if (!(error instanceof HubSpotError)) throw error;
    const { status, trouble } = error;
    switch (trouble.kind) {
      case 'wait': {
        const nowMs = deps.now();
        const until = new Date(nowMs + trouble.waitMs).toISOString();
        const reason = `HubSpot ${trouble.policy} limit reached: paused until ${until}`;
        await deferPendingEvents(deps.database.db, config.name, until, reason, new Date(nowMs).toISOString());
        deps.logger.warn({ destination: config.name, policy: trouble.policy, until }, reason);
        return { outcome: 'wait', status: status ?? 429, error: reason, waitMs: trouble.waitMs };
      }
      case 'pause':
        return { outcome: 'pause', status: status ?? 0, error: trouble.error };
      case 'retry':
        return {
          outcome: 'retry',
          status,
          error: trouble.error,
          ...(trouble.retryAfterMs !== undefined ? { retryAfterMs: trouble.retryAfterMs } : {}),
        };
      case 'fail':
        return { outcome: 'fail', status, error: trouble.error };
    }
  };
  return {
    kind: 'outbox',
    template: undefined,
    normalized: true,
    async deliver(delivery, signal) {
      return (await this.deliverBatch!([delivery], signal))[0]!;
    },
    async deliverBatch(deliveries, signal) {
      let report: SyncReport;
      try {
        report = await run(deliveries, signal, false);
      } catch (error) {
        await flush();
        const result = await trouble(error);
        return deliveries.map(() => result);
      }
      await flush(report.records);
      for (const record of report.records) {
        if (record.warnings.length > 0)
          deps.logger.warn(
            { destination: config.name, object: record.object, warnings: record.warnings },
            'values left out of a HubSpot record (not valid for their property)',
          );
      }
      return deliveries.map((_, index): AttemptResult => {
        const error = report.failedEvents.get(index);
        return error === undefined
          ? { outcome: 'delivered', status: 200 }
          : { outcome: 'fail', status: 400, error };
      });
    },
    dryRun: (deliveries, signal) => run(deliveries, signal, true).finally(() => flush()),
    async setupPortal({ dryRun, signal }) {
      templates ??= loadHubSpotTemplates();
      return setupPortal({
        client,
        db: deps.database.db,
        templates: await templates,
        keys: settings.keys,
        dryRun,
        signal,
      }).finally(() => flush());
    },
    async ping(signal) {
      try {
        // A read of a record that is not there: 2xx (207) proves the token and the read scopes.
        for (const object of ['contacts', 'companies']) {
          const body = { inputs: [{ id: '0' }], properties: [], propertiesWithHistory: [] };
          await client.request('POST', `/crm/v3/objects/${object}/batch/read`, body, signal);
        }
        return { outcome: 'delivered', status: 200 };
      } catch (error) {
        return trouble(error);
      } finally {
        await flush();
      }
    },
  };
}

/** The `hubspot` destination type. */
export const HUBSPOT_DESTINATION: DestinationType<HubSpotDestinationConfig> = {
  type: 'hubspot',
  schema: hubspotSchema,
  dispatchSettings: (config) => ({
    timeoutMs: config.timeout ?? DEFAULT_HUBSPOT_TIMEOUT_MS,
    scheduleMs: config.retry?.schedule ?? DEFAULT_RETRY_SCHEDULE.map((text) => durationSchema.parse(text)),
    // One batch at a time: companies are written before the contacts that name them.
    concurrency: 1,
    // Pacing is the client's, per HubSpot call, not the lane's per event.
    rate: undefined,
    kinds: config.kinds,
    batch: { size: HUBSPOT_BATCH_LIMIT, lingerMs: config.linger ?? DEFAULT_HUBSPOT_LINGER_MS },
  }),
  create: createHubSpotDestination,
};
