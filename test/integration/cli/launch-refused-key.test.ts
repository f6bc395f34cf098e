/**
 * A key the service refuses during `launch` is one line and a stop: no line per row, no JSON warning, no
 * progress or summary, one request; the rows stay to be launched by the next run with the right key. And
 * a bad setting exits 2 whether a flag or a variable gave it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../../helpers/reliability-proxy.js';

describe('launch with a key the service refuses', () => {
  let dir: string;
  let sim: Simulator;
  let proxy: RoundRobinProxy;
  let sent = 0;
  const requests = () => (proxy.forwarded[0] ?? 0) - sent;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-refused-key-'));
    sim = await createSimulator({ seed: 5 });
    proxy = await startRoundRobinProxy([sim.url]);
    writeFileSync(join(dir, 'ips.csv'), 'ip\n203.0.113.7\n203.0.113.8\n203.0.113.9\n198.51.100.4\n');
    writeFileSync(
      join(dir, 'contacts.csv'),
      'professional_email,contact_full_name\nann@acme.com,Ann Lee\nbo@globex.com,Bo Li\ncy@initech.com,Cy Ro\n',
    );
  });
  afterAll(async () => {
    await proxy.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const launch = (operation: string, file: string, key: string) => {
    sent = proxy.forwarded[0] ?? 0;
    return runCliCaptured(['launch', operation, '--from', join(dir, file)], {
      env: {
        HOOKSYNC_API_BASE_URL: proxy.url,
        HOOKSYNC_API_KEY: key,
        HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
      },
    });
  };

  it.each([
    ['reveal', 'ips.csv', 4],
    ['job-change', 'contacts.csv', 3],
  ])(
    '%s prints one line, sends one request, and leaves the rows for the next run',
    async (operation, file, rows) => {
      const jobsBefore = sim.jobs().length;
      const refused = await launch(operation, file, 'not-the-key');
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        'hooksync: the service refused the API key (AUTH_BAD_API_KEY): nothing was launched\n',
      );
      expect(requests()).toBe(1);
      expect(sim.jobs()).toHaveLength(jobsBefore);

      const next = await launch(operation, file, sim.apiKey);
      expect(next.code).toBe(0);
      expect(next.stdout).toMatch(new RegExp(`: ${rows} rows: ${rows} launched, 0 skipped`));
    },
  );

  it.each([
    ['--port abc', ['serve', '--port', 'abc'], {}],
    ['HOOKSYNC_PORT=abc', ['serve'], { HOOKSYNC_PORT: 'abc' }],
    ['HOOKSYNC_LOG_LEVEL=loud', ['jobs', 'list'], { HOOKSYNC_LOG_LEVEL: 'loud' }],
    [
      'HOOKSYNC_API_BASE_URL=ftp://x',
      ['launch', 'reveal', '--from', '-'],
      { HOOKSYNC_API_BASE_URL: 'ftp://x' },
    ],
    ['--api-base-url ftp://x', ['launch', 'reveal', '--from', '-', '--api-base-url', 'ftp://x'], {}],
    ['HOOKSYNC_ALLOW_INSECURE_HTTP=a b', ['serve'], { HOOKSYNC_ALLOW_INSECURE_HTTP: 'a b' }],
  ])('a bad setting (%s) exits 2 with one line', async (_name, argv, env) => {
    const run = await runCliCaptured([...argv, '--database-url', join(dir, 'settings.db')], { env });
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(run.stderr).toMatch(/^hooksync: /);
  });
});
