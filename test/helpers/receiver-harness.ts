/**
 * A real receiver for tests: SQLite file in a temp folder or a fresh Postgres database, a key set on a
 * local socket, a fixed clock, and log lines collected in memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load-config.js';
import {
  type RunningReceiver,
  type StartReceiverOptions,
  startReceiver,
} from '../../src/server/start-receiver.js';
import { BUILT_STORE_WORKER } from './ensure-built.js';
import { createTestDatabase } from './postgres.js';
import { createSigningKey, type JwksServer, type SigningKey, startJwksServer } from './webhook-signer.js';

/** The fixed time of the tests' clock: 2026-11-22T12:00:00Z. */
export const NOW_MS = Date.UTC(2026, 10, 22, 12, 0, 0);
export const NOW_S = NOW_MS / 1000;

export type Dialect = 'sqlite' | 'postgres';

export interface ReceiverHarness {
  running: RunningReceiver;
  url: string;
  key: SigningKey;
  jwks: JwksServer;
  databaseUrl: string;
  /** Every log line written so far. */
  logs(): string;
  close(): Promise<void>;
}

/** Where a test keeps its database. */
export async function createDatabaseUrl(
  dialect: Dialect,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === 'postgres') return createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-test-'));
  return { url: join(dir, 'hooksync.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts a receiver trusting one fresh signing key. */
export async function startHarness(
  dialect: Dialect,
  options: {
    env?: Record<string, string>;
    receiver?: Partial<StartReceiverOptions>;
    databaseUrl?: string;
  } = {},
): Promise<ReceiverHarness> {
  const key = await createSigningKey();
  const jwks = await startJwksServer([key.publicJwk]);
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createDatabaseUrl(dialect);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const config = loadConfig(
    { HOOKSYNC_JWKS_URL: jwks.url, HOOKSYNC_DATABASE_URL: database.url, ...options.env },
    { port: 0 },
  );
  const running = await startReceiver({
    config,
    logger: pino({ level: 'debug' }, sink),
    now: () => NOW_MS,
    unknownKidCooldownMs: 1,
    storeWorkerUrl: BUILT_STORE_WORKER,
    ...options.receiver,
  });
  return {
    running,
    url: running.url,
    key,
    jwks,
    databaseUrl: database.url,
    logs: () => lines.join(''),
    async close() {
      await running.close();
      await jwks.close();
      await database.drop();
    },
  };
}

/** POSTs a delivery as the service would. */
export async function deliver(
  url: string,
  body: string | Uint8Array,
  signature: string | undefined,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (signature !== undefined) headers['x-webhook-signature'] = signature;
  const response = await fetch(`${url}/webhooks`, { method: 'POST', headers, body });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: response.headers,
  };
}
