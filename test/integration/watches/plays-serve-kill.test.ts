/**
 * The real `hooksync serve` running a watch with a task play over the HubSpot stand-in, killed with SIGKILL
 * while HubSpot has made the task and its answer is held (a proxy in front of the stand-in forwards the
 * create and never answers it), then started again: the task play is taken up, the task looked for before
 * one is made, and exactly one task exists for the mover, associated with the contact, for its owner, due as
 * configured. Conditions are waited for, never durations.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/storage/open-database.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { until } from '../destinations/destinations-context.js';
import { serveWatchCrmEnv, untilBaseline, useWatchCrmWorld } from './serve-watch-crm.js';

const OWNER = '41629779';
const DUE_MS = 3 * 86_400_000;

/** Forwards every request to `upstream`; while `hold` is on, a task create is forwarded and never answered. */
interface HoldingProxy {
  readonly url: string;
  hold: boolean;
  /** Task creates HubSpot answered and the proxy kept. */
  held: number;
  close(): Promise<void>;
}

async function startHoldingProxy(upstream: string): Promise<HoldingProxy> {
  const proxy = {
    url: '',
    hold: true,
    held: 0,
    close: async () => {},
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
          headers[name] = value;
      }
      const body = method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks);
      const isCreate =
        method === 'POST' && new URL(req.url ?? '/', 'http://x').pathname.endsWith('/objects/tasks');
      void fetch(`${upstream}${req.url ?? '/'}`, { method, headers, body })
        .then(async (answer) => {
          const text = Buffer.from(await answer.arrayBuffer());
          if (isCreate && proxy.hold) {
            // HubSpot has made the task; its answer never reaches hooksync.
            proxy.held += 1;
            return;
          }
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
              out[name] = value;
          });
          res.writeHead(answer.status, { ...out, 'content-length': String(text.length) });
          res.end(text);
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

const fixture = useServeFixture('hooksync-plays-kill-');
const world = useWatchCrmWorld(17);
let proxy: HoldingProxy;
beforeAll(async () => {
  proxy = await startHoldingProxy(world.hs.url);
});
afterAll(async () => {
  await proxy?.close();
});

describe('hooksync serve making a CRM task for a mover, killed', () => {
  it('after a SIGKILL while the task create was held, exactly one task exists, for the owner, associated, due as configured', async () => {
    const { sim, hs } = world;
    hs.defineProperty('contacts', { name: 'hubspot_owner_id', type: 'string', fieldType: 'text' });
    hs.addOwner({ id: OWNER, userId: 7_001, email: 'rep@example.com', firstName: 'Rae', lastName: 'Park' });
    const ann = hs.seed('contacts', { email: 'ann.lee@acme.com', hubspot_owner_id: OWNER });
    await writeFile(join(fixture.dir, 'contacts.csv'), `Email,Id,Domain\nann.lee@acme.com,${ann},acme.com\n`);
    sim.setJobChange({ professional_email: 'ann.lee@acme.com' }, { job_change_status: 'no_change' });
    const env = await serveWatchCrmEnv(
      world,
      fixture,
      [
        {
          name: 'champions',
          launch: 'job-change',
          from: { file: 'contacts.csv' },
          map: { professional_email: 'Email', company_domain: 'Domain' },
          carry: { hs_object_id: 'Id' },
          // The least period: cycle 2 starts 10 s after cycle 1.
          every: '10s',
          plays: {
            task: {
              destination: 'crm',
              on: ['moved', 'left'],
              subject: '{{name}} moved to {{company}}: reach out',
              due: '3d',
            },
          },
        },
      ],
      proxy.url,
    );
    const first = await spawnServe(env);
    const database = await openDatabase(env.HOOKSYNC_DATABASE_URL!);
    let second: Awaited<ReturnType<typeof spawnServe>> | undefined;
    try {
      await untilBaseline(database);
      sim.setJobChange(
        { professional_email: 'ann.lee@acme.com' },
        { job_change_status: 'moved', company_domain: 'other.io', company_name: 'Other', title: 'CRO' },
      );
      await until('HubSpot has made the task and its answer is held', () => proxy.held === 1, 90_000);
      expect(hs.tasks()).toHaveLength(1);
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      const claimed = await database.db.selectFrom('watch_plays').selectAll().executeTakeFirstOrThrow();
      expect(claimed).toMatchObject({ play: 'task', state: 'claimed', task_id: null, attempts: 1 });

      proxy.hold = false;
      second = await spawnServe(env);
      const play = () => database.db.selectFrom('watch_plays').selectAll().executeTakeFirstOrThrow();
      await until(
        'the restarted serve records the task',
        async () => (await play()).state === 'done',
        90_000,
      );
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);

      const tasks = hs.tasks();
      expect(tasks).toHaveLength(1);
      const moved = await database.db
        .selectFrom('watch_changes')
        .selectAll()
        .where('change', '=', 'moved')
        .executeTakeFirstOrThrow();
      const due = new Date(Date.parse(moved.detected_at) + DUE_MS);
      expect(tasks[0]!.properties).toMatchObject({
        hubspot_owner_id: OWNER,
        hs_task_subject: 'ann.lee@acme.com moved to Other: reach out',
        hs_timestamp: due.toISOString(),
      });
      expect(tasks[0]!.properties.hs_task_body).toContain(`[hooksync champions change ${moved.id}]`);
      expect(tasks[0]!.associations).toEqual([{ toId: ann, typeId: 204 }]);
      expect(await play()).toMatchObject({
        state: 'done',
        task_id: tasks[0]!.id,
        attempts: 2,
        detail: `for owner ${OWNER}, due ${due.toISOString().slice(0, 10)}`,
      });
      // Found by its marker, not made again: one create reached HubSpot in all.
      expect(hs.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/objects/tasks'))).toHaveLength(
        1,
      );
      expect(second.stderr()).toMatch(/"found":true[^\n]*"msg":"watch task created"/);
    } finally {
      for (const serve of [first, second])
        if (serve !== undefined && serve.child.exitCode === null) serve.child.kill('SIGKILL');
      await database.close();
    }
  }, 180_000);
});
