/**
 * API key records (Resources, API key record) and the API Keys List answer `{api_keys: [...]}`.
 */
import { z } from 'zod';

/** One API key of the account: the master key or a sub-key with its own rate setting. */
export const apiKeyRecordSchema = z.looseObject({
  // The interface says "UUID form", but a key is an opaque secret to us: never refuse one for its form
  // (a sub-key made elsewhere, the simulator's --api-key), or learning the rate from the list would fail.
  api_key: z.string().min(1),
  active: z.boolean(),
  notes: z.string(),
  master: z.boolean(),
  /** Requests allowed per interval for this key. */
  per_interval: z.int().nonnegative(),
  /** Interval length; a zero-length interval would make the rate meaningless. */
  interval_seconds: z.int().positive(),
});
export type ApiKeyRecord = z.output<typeof apiKeyRecordSchema>;

/** The 200 answer of GET /v1/api-keys: the master key and all sub-keys. */
export const apiKeyListSchema = z.looseObject({
  api_keys: z.array(apiKeyRecordSchema),
});
export type ApiKeyList = z.output<typeof apiKeyListSchema>;
