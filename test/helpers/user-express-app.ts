/**
 * A user's own express app receiving deliveries through the public surface (createDeliveryHandler and
 * createWebhookMiddleware), on a SQLite file and a key set served on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type Express } from 'express';
import {
  createDeliveryHandler,
  createJobStore,
  createKeySetCache,
  type DeliveryHandler,
  type DeliveryHandlerDeps,
  type HooksyncDatabase,
  openMigratedDatabase,
} from '../../src/index.js';
import { NOW_MS } from './receiver-harness.js';
import { createSigningKey, type SigningKey, startJwksServer } from './webhook-signer.js';

/** A running user app. */
export interface UserApp {
  database: HooksyncDatabase;
  /** The key the service signs with (its JWKS is what the handler loads). */
  key: SigningKey;
  server: Server;
  /** http://127.0.0.1:<port> */
  base: string;
  close(): Promise<void>;
}

/** Starts an express app whose routes `mount` adds, given a handler with `limits`. */
export async function startUserApp(
  mount: (app: Express, handler: DeliveryHandler) => void,
  limits: DeliveryHandlerDeps['limits'] = {},
): Promise<UserApp> {
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-mw-'));
  const database = await openMigratedDatabase(join(dir, 'app.db'));
  const store = createJobStore({ database });
  const key = await createSigningKey();
  const jwks = await startJwksServer([key.publicJwk]);
  const keys = createKeySetCache({ url: jwks.url });
  await keys.load();
  const handler = createDeliveryHandler({
    keys,
    store,
    database,
    unsigned: 'reject',
    now: () => NOW_MS,
    limits,
  });
  const app = express();
  mount(app, handler);
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    database,
    key,
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      await database.close();
      await jwks.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
