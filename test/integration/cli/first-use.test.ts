/**
 * The rough edges a newcomer hits, each answered with one clear line: a mistyped database, a bad flag named
 * as typed, one prefix per line, a CSV without its column, a port in use, a service that refuses.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';

describe('first use of the CLI', () => {
  let dir: string;
  let occupied: Server;
  let occupiedPort = 0;
  let closedPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-first-use-'));
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
    occupiedPort = (occupied.address() as { port: number }).port;
    // Port 2: nothing listens there and no test can bind it, so a connection is always refused (a port freed
    // by a closed server could be taken by a parallel test file).
    closedPort = 2;
  });
  afterAll(async () => {
    await new Promise((resolve) => occupied.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [['jobs', 'list']],
    [['jobs', 'get', '00000000-0000-4000-8000-000000000000']],
    [['quarantine', 'list']],
    [['purge', '--older-than', '90d', '--dry-run']],
    [['destinations', 'list']],
    [['destinations', 'replay', 'warehouse', '--failed']],
  ])('%j refuses a database that does not exist, naming it, and creates nothing', async (argv) => {
    const typo = join(dir, 'typo.db');
    const run = await runCliCaptured([...argv, '--database-url', typo]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^hooksync: no database at ${typo}: nothing was created .*\\n$`));
    expect(existsSync(typo)).toBe(false);
    // The same through the variable.
    const byEnv = await runCliCaptured(argv, { env: { HOOKSYNC_DATABASE_URL: typo } });
    expect(byEnv.code).toBe(1);
    expect(existsSync(typo)).toBe(false);
  });

  it('names a bad value by the flag that gave it, and by the variable when it came from there', async () => {
    const flag = await runCliCaptured(['serve', '--port', 'abc', '--database-url', join(dir, 'a.db')]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe('hooksync: --port must be an integer from 0 to 65535 (got "abc")\n');
    const variable = await runCliCaptured(['serve', '--database-url', join(dir, 'a.db')], {
      env: { HOOKSYNC_PORT: 'abc' },
    });
    expect(variable.stderr).toMatch(/^hooksync: HOOKSYNC_PORT must be an integer/);
    const url = await runCliCaptured(['jobs', 'list', '--database-url', 'mysql://x/y']);
    expect(url.stderr).toMatch(/^hooksync: --database-url must be a SQLite file path or a postgres:\/\/ URL/);
    const level = await runCliCaptured(['sim', '--port', 'abc']);
    expect(level.stderr).toBe('hooksync: --port must be an integer >= 0, got "abc"\n');
  });

  it('prints one prefix per error line', async () => {
    const sim = await runCliCaptured(['sim', '--duplicate-rate', '2']);
    expect(sim.code).toBe(2);
    expect(sim.stderr).toBe('hooksync: --duplicate-rate must be a number from 0 to 1, got "2"\n');
    const csv = join(dir, 'no-job-id.csv');
    writeFileSync(csv, 'id,kind\n6f1c5a3e-8a8e-4a36-9d51-3c1f0a7b2d10,job_change\n');
    const track = await runCliCaptured(['track', '--from', csv, '--database-url', join(dir, 't.db')]);
    expect(track.code).toBe(1);
    // A missing column is named as missing, not as one bad id per line.
    expect(track.stderr).toBe('hooksync: the CSV has no job_id column (its header: id,kind)\n');
  });

  it('suggests --port 0 when the port is in use', async () => {
    const sim = await runCliCaptured(['sim', '--port', String(occupiedPort)]);
    expect(sim.code).toBe(1);
    expect(sim.stderr).toBe(
      `hooksync: 127.0.0.1:${occupiedPort} is already in use: stop what listens there, or pick another port (--port 0 takes any free one)\n`,
    );
    const serve = await runCliCaptured(
      [
        'serve',
        '--port',
        String(occupiedPort),
        '--database-url',
        join(dir, 'in-use.db'),
        '--log-level',
        'silent',
      ],
      { env: { HOOKSYNC_JWKS_URL: `http://127.0.0.1:${closedPort}/.well-known/jwks.json` } },
    );
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(/is already in use: .*--port 0 takes any free one\)\n$/);
  });

  it('prints the base URL others reach the simulator by with --public-url (as in compose)', async () => {
    const run = await runCliCaptured(
      ['sim', '--port', '0', '--api-key', 'k', '--public-url', 'http://sim:8788/', '--log-level', 'silent'],
      { shutdown: Promise.resolve('SIGTERM') },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      'HOOKSYNC_API_BASE_URL=http://sim:8788\nHOOKSYNC_API_KEY=k\nHOOKSYNC_JWKS_URL=http://sim:8788/.well-known/jwks.json\n',
    );
    const bad = await runCliCaptured(['sim', '--public-url', 'sim:8788']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^hooksync: --public-url must be an http:\/\/ or https:\/\/ URL/);
  });

  it('fails at once, in one line, when the service refuses the connection', async () => {
    const run = await runCliCaptured([
      'reveal',
      '203.0.113.7',
      '--api-base-url',
      `http://127.0.0.1:${closedPort}`,
      '--api-key',
      'k',
      '--database-url',
      join(dir, 'refused.db'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(run.stderr).toMatch(
      /^hooksync: POST \/v1\/company-reveal failed: .*ECONNREFUSED.*\(NETWORK_ERROR\)\n$/,
    );
  });
});
