/**
 * An express app with the status page router (and the receiver's JSON 404 after it), listening on
 * 127.0.0.1 port 0, with a clock the test moves.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Kysely } from 'kysely';
import { createStatusPageRouter } from '../../../src/server/status-page/create-status-page-router.js';
import type { Database } from '../../../src/storage/database.js';

/** A listening app. */
export interface StatusApp {
  readonly base: string;
  /** Moves the clock the router reads. */
  setNow(ms: number): void;
  close(): Promise<void>;
}

/** Starts the app; `adminToken` undefined switches the page off. */
export async function startStatusApp(
  db: Kysely<Database>,
  adminToken: string | undefined,
  nowMs: number,
): Promise<StatusApp> {
  let now = nowMs;
  const app = express();
  app.use(createStatusPageRouter({ db, adminToken, now: () => new Date(now) }));
  app.use((_req, res) => void res.status(404).json({ status: 'error', code: 'NOT_FOUND' }));
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setNow(ms) {
      now = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
