/**
 * The window after a crash (docs/destinations.md, Pipedrive, "After a crash"): Pipedrive created an
 * organization (Initech, every mover's new employer) and serve died before reading its answer, so its id
 * is not in the key → id map (`crm_record_ids`). The events the killed process had not claimed are worked
 * at once by the restarted one, whose search (an index that lags writes) misses Initech: it is created a
 * second time. The proxy holds Pipedrive's answer to Initech's create until serve is killed, so the window
 * is hit every run. Every create answered before it is recorded as its answer is read (and a create's
 * answer is awaited past the attempt's timeout), so the window at the kill is that one organization in
 * flight, and it is the only one made twice.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { type PipedriveStandIn, startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { addTemplateFields } from '../../helpers/pipedrive/store.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { postKillJobs, restartUntilDelivered, writeServeEnv } from './serve-kill.js';

const fixture = useServeFixture('hooksync-pipedrive-window-');
let pd: PipedriveStandIn;
let proxy: Server;
let proxyUrl: string;
let armed = false;
let created: (drop: () => void) => void;
const initechCreated = new Promise<() => void>((resolve) => {
  created = resolve;
});

beforeAll(async () => {
  // Search sees a write after 30 s (Pipedrive states no delay): longer than any restart takes.
  pd = await startPipedriveStandIn({ burst: 1_000, searchBurst: 1_000, indexLagMs: 30_000 });
  const target = new URL(pd.url);
  // Passes every call to the stand-in; kills serve when Pipedrive has answered Initech's create, before
  // serve reads the answer.
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const out = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            if (
              armed &&
              req.method === 'POST' &&
              req.url?.startsWith('/api/v2/organizations') === true &&
              body.toString().includes('initech.io')
            ) {
              armed = false;
              created(() => res.destroy());
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(parts));
          });
        },
      );
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await pd?.close();
});

describe('hooksync serve with a Pipedrive destination, killed between a create and its record', () => {
  it('creates Initech, the one in flight at the kill, a second time, and nothing else twice', async () => {
    const keys = addTemplateFields(pd.store) as { domain: string };
    const env = writeServeEnv(
      fixture,
      'window',
      {
        destinations: [
          {
            name: 'crm',
            type: 'pipedrive',
            token: { env: 'PIPEDRIVE_TOKEN' },
            base_url: proxyUrl,
            timeout: '2s',
          },
        ],
      },
      { PIPEDRIVE_TOKEN: pd.token },
    );
    pd.setLatency(300);
    const serve = await spawnServe(env);
    armed = true;
    await postKillJobs(fixture, serve);
    const drop = await initechCreated;
    serve.child.kill('SIGKILL');
    expect(await serve.exited).toBe('SIGKILL');
    drop();
    // The window at the kill: organizations Pipedrive holds whose ids the killed process had not recorded.
    // Each create's id is recorded once its answer is read, so only the one in flight is in it.
    expect(await unrecordedAtKill(env.HOOKSYNC_DATABASE_URL!, keys.domain)).toEqual(['initech.io']);
    pd.setLatency(0);
    await restartUntilDelivered(env, 90_000);
    const orgs = pd.store.live('organizations').map((o) => String(o.custom_fields[keys.domain]));
    expect(orgs.filter((domain) => domain === 'initech.io')).toHaveLength(2);
    // All 11 domains there, and nothing but Initech twice.
    expect(new Set(orgs).size).toBe(11);
    expect(orgs).toHaveLength(12);
  }, 150_000);
});

/** The domains of the organizations the stand-in holds that `crm_record_ids` of the database at `url` lacks. */
async function unrecordedAtKill(url: string, domainField: string): Promise<string[]> {
  const database = await openMigratedDatabase(url);
  try {
    const rows = await database.db
      .selectFrom('crm_record_ids')
      .select('record_id')
      .where('destination', '=', 'crm')
      .where('object', '=', 'companies')
      .execute();
    const recorded = new Set(rows.map((row) => row.record_id));
    return pd.store
      .live('organizations')
      .filter((o) => !recorded.has(String(o.id)))
      .map((o) => String(o.custom_fields[domainField]));
  } finally {
    await database.close();
  }
}
