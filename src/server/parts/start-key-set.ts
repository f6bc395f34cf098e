/** serve's webhook key set: loaded at start (not fatally), refreshed until closed. */
import type { Logger } from 'pino';
import { createKeySetCache, type KeySetCache } from '../../webhooks/key-set-cache.js';
import type { Closable } from './serve-part.js';

/** Starts the key-set cache for `url`. */
export async function startKeySet(options: {
  readonly url: string;
  readonly logger: Logger;
  readonly fetch?: typeof globalThis.fetch | undefined;
  readonly unknownKidCooldownMs?: number | undefined;
}): Promise<Closable & { readonly keys: KeySetCache }> {
  const { logger } = options;
  const keys = createKeySetCache({
    url: options.url,
    logger,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.unknownKidCooldownMs !== undefined
      ? { unknownKidCooldownMs: options.unknownKidCooldownMs }
      : {}),
  });
  try {
    await keys.load();
  } catch (error) {
    // Not fatal: deliveries get 500 (retried by the sender) and /readyz says not ready until keys load.
    logger.warn({ err: error }, 'webhook key set not loaded at start; will keep trying');
  }
  keys.start();
  return { keys, close: () => keys.stop() };
}
