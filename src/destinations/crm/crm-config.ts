/**
 * What every CRM destination's configuration has beside its CRM's own settings (credentials, keys, base
 * URL): the write policy and its per-field overrides, the pace, job kinds, the attempt timeout, the retry
 * schedule and the linger; and the lane settings they make.
 */
import { z } from 'zod';
import { durationSchema, kindsSchema, rateSchema } from '../config-fields.js';
import type { DispatchSettings } from '../destination-type.js';
import { DEFAULT_RETRY_SCHEDULE } from '../webhook-destination.js';
import type { CrmKeys } from './map-records.js';
import type { FieldPolicy } from './plan-writes.js';
import type { SyncSettings } from './sync-batch.js';

/** How long the lane waits for more events before sending a batch smaller than the CRM's batch. */
export const DEFAULT_CRM_LINGER_MS = 500;
/** One batch is several paced calls (reads, writes, links): its attempt gets this long. */
export const DEFAULT_CRM_TIMEOUT_MS = 120_000;

/** A field's write policy. */
export const fieldPolicySchema = z.enum(['overwrite', 'fill-empty', 'skip']);

/** The shared part of a CRM destination's schema, given how the CRM spells a field name and its default rate. */
export function crmConfigShape(fieldName: z.ZodString, defaultRate: string) {
  return {
    write: z.enum(['fill-empty', 'overwrite']).default('fill-empty'),
    fields: z.record(fieldName, fieldPolicySchema).default({}),
    rate: rateSchema.default(rateSchema.parse(defaultRate)),
    kinds: kindsSchema,
    timeout: durationSchema.optional(),
    retry: z.strictObject({ schedule: z.array(durationSchema).min(1).max(50) }).optional(),
    linger: durationSchema.optional(),
  };
}

/** The shared settings, as validated. */
export interface CrmConfigFields {
  readonly kinds?: readonly string[] | undefined;
  readonly timeout?: number | undefined;
  readonly retry?: { readonly schedule: readonly number[] } | undefined;
  readonly linger?: number | undefined;
}

/**
 * The lane settings of a CRM destination: one batch at a time, of the CRM's size, paced by its client;
 * `fullAt`: events that fill a call (default `batchSize`), past which the lane does not linger for more.
 */
export function crmDispatchSettings(
  config: CrmConfigFields,
  batchSize: number,
  fullAt?: number,
): DispatchSettings {
  return {
    timeoutMs: config.timeout ?? DEFAULT_CRM_TIMEOUT_MS,
    scheduleMs: config.retry?.schedule ?? DEFAULT_RETRY_SCHEDULE.map((text) => durationSchema.parse(text)),
    // One batch at a time: companies are written before the contacts that name them.
    concurrency: 1,
    // Pacing is the client's, per CRM call, not the lane's per event.
    rate: undefined,
    kinds: config.kinds,
    batch: {
      size: batchSize,
      lingerMs: config.linger ?? DEFAULT_CRM_LINGER_MS,
      ...(fullAt === undefined ? {} : { fullAt }),
    },
  };
}

/** The sync settings of a CRM destination: its keys, its write policies as configured, and its CRM's moved fields. */
export function crmSyncSettings(
  config: {
    readonly write: 'fill-empty' | 'overwrite';
    readonly fields: Readonly<Record<string, FieldPolicy>>;
  },
  keys: CrmKeys,
  movedFields: readonly string[],
): SyncSettings {
  return { keys, write: config.write, fields: config.fields, movedFields };
}
