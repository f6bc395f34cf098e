/**
 * docker-compose.yml, the Dockerfile and .dockerignore against the code they run: every command's
 * subcommand and flags exist in the CLI (introspected from createProgram), every HOOKSYNC_* variable is one
 * the config (or the simulator) reads, the environment passes loadConfig, ports agree with the defaults,
 * and the image's HEALTHCHECK succeeds against a real receiver (and fails when none listens).
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Cron } from 'croner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_PORT, SIM_RETRY_BASE_MS_VARIABLE } from '../../../src/cli/commands/sim.js';
import type { CliContext } from '../../../src/cli/context.js';
import { createProgram } from '../../../src/cli/create-program.js';
import { CONFIG_VARIABLES, DEFAULT_PORT, loadConfig } from '../../../src/config/load-config.js';
import { type RunningReceiver, startReceiver } from '../../../src/server/start-receiver.js';
import { BUILT_STORE_WORKER } from '../../helpers/ensure-built.js';
import { commandProblems } from './command-problems.js';
import { type DockerInstruction, readDockerfile, readEnvPairs } from './read-dockerfile.js';
import { readYamlSubset, type YamlValue } from './read-yaml-subset.js';

const ROOT = new URL('../../../', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, ROOT), 'utf8');

/** Variables the simulator reads beyond the config (documented in `hooksync sim --help`). */
const SIMULATOR_VARIABLES: readonly string[] = [SIM_RETRY_BASE_MS_VARIABLE];
const KNOWN_VARIABLES = new Set<string>([...Object.values(CONFIG_VARIABLES), ...SIMULATOR_VARIABLES]);

type Map = { [key: string]: YamlValue };
function map(value: YamlValue | undefined, where: string): Map {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${where} is not a map`);
  return value;
}
function strings(value: YamlValue | undefined, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new Error(`${where} is not a list of strings`);
  return value as string[];
}

/** Variables a compose value interpolates: ${VAR}, ${VAR:-default}, ${VAR:?message}. */
function interpolated(value: string): string[] {
  return [...value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1] ?? '');
}
/** The value as compose would see it with no variable set (defaults applied, required ones filled in). */
function withDefaults(value: string): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?([-?])([^}]*))?\}/g,
    (_m, name: string, op?: string, rest?: string) =>
      op === '-' ? (rest ?? '') : op === '?' ? `given-${name.toLowerCase()}` : '',
  );
}

function fakeContext(): CliContext {
  return {
    env: {},
    stdin: Readable.from(['']),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    interactive: false,
    setExitCode: () => {},
    shutdown: new Promise<string>(() => {}),
  };
}

function optionValue(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i === -1 ? undefined : argv[i + 1];
}

/** The container side of "host:container" / "ip:host:container". */
function containerPort(spec: string): number {
  return Number(spec.split(':').at(-1));
}

const program = createProgram(fakeContext());
const compose = map(readYamlSubset(read('docker-compose.yml')), 'docker-compose.yml');
const services = map(compose.services, 'services');
const service = (name: string) => map(services[name], `services.${name}`);
const environment = (name: string) => map(service(name).environment ?? {}, `services.${name}.environment`);

describe('docker-compose.yml', () => {
  it('has PostgreSQL with a healthcheck and a named volume, hooksync waiting for it, and the simulator under profile sim', () => {
    const postgres = service('postgres');
    expect(
      strings(map(postgres.healthcheck, 'postgres.healthcheck').test, 'postgres.healthcheck.test').join(' '),
    ).toMatch(/pg_isready/);
    const volume = strings(postgres.volumes, 'postgres.volumes')[0]?.split(':')[0] ?? '';
    expect(Object.keys(map(compose.volumes, 'volumes'))).toContain(volume);
    expect(
      map(map(service('hooksync').depends_on, 'depends_on').postgres, 'depends_on.postgres').condition,
    ).toBe('service_healthy');
    expect(strings(service('sim').profiles, 'sim.profiles')).toEqual(['sim']);
    expect(service('hooksync').profiles).toBeUndefined();
  });

  it.each(['hooksync', 'sim'])('runs a %s command whose subcommand and flags exist in the CLI', (name) => {
    const argv = strings(service(name).command, `${name}.command`);
    expect(commandProblems(program, argv)).toEqual([]);
  });

  it('schedules reconcile nightly with a cron expression croner accepts', () => {
    const cron = optionValue(strings(service('hooksync').command, 'command'), '--reconcile-cron') ?? '';
    expect(cron).toBe('0 3 * * *');
    const job = new Cron(cron, { paused: true });
    expect(job.nextRun(new Date(Date.UTC(2026, 10, 22, 12)))?.getHours()).toBe(3);
    job.stop();
  });

  it('uses only HOOKSYNC_* variables that the config or the simulator reads', () => {
    for (const [name, value] of Object.entries(services)) {
      const env = map(map(value, name).environment ?? {}, `${name}.environment`);
      const referenced = [
        ...Object.keys(env),
        ...Object.values(env).flatMap((v) => (typeof v === 'string' ? interpolated(v) : [])),
      ];
      const command = map(value, name).command;
      if (Array.isArray(command)) referenced.push(...strings(command, 'command').flatMap(interpolated));
      const unknown = referenced.filter((v) => v.startsWith('HOOKSYNC_') && !KNOWN_VARIABLES.has(v));
      expect(unknown, `unknown variables in service ${name}`).toEqual([]);
    }
  });

  it('gives hooksync an environment loadConfig accepts: Postgres, the simulator as default upstream, 0.0.0.0 on the default port', () => {
    const env = Object.fromEntries(
      Object.entries(environment('hooksync')).map(([k, v]) => [k, withDefaults(String(v ?? ''))]),
    );
    // The simulator is plain http on the compose network: allowed for the host "sim" only, so that a plain
    // http service URL to any other host is still refused.
    expect(env.HOOKSYNC_ALLOW_INSECURE_HTTP).toBe('sim');
    expect(() => loadConfig({ ...env, HOOKSYNC_API_BASE_URL: 'http://api.example.com' })).toThrow(
      /HOOKSYNC_API_BASE_URL must be https:\/\//,
    );
    const config = loadConfig(env);
    expect(config.databaseUrl).toMatch(/^postgres:\/\//);
    const database = new URL(config.databaseUrl);
    const postgresEnv = environment('postgres');
    expect([database.hostname, database.port, database.username, database.pathname]).toEqual([
      'postgres',
      '5432',
      postgresEnv.POSTGRES_USER,
      `/${String(postgresEnv.POSTGRES_DB)}`,
    ]);
    expect(config.host).toBe('0.0.0.0');
    expect(config.port).toBe(DEFAULT_PORT);
    expect(strings(service('hooksync').ports, 'ports').map(containerPort)).toEqual([config.port]);
    const simArgv = strings(service('sim').command, 'sim.command');
    expect(config.apiBaseUrl).toBe(`http://sim:${optionValue(simArgv, '--port')}`);
    expect(config.jwksUrl).toBe(`http://sim:${DEFAULT_SIM_PORT}/.well-known/jwks.json`);
    // The simulator's master key and the receiver's key are the same variable.
    expect(optionValue(simArgv, '--api-key')).toMatch(/^\$\{HOOKSYNC_API_KEY/);
    expect(String(environment('hooksync').HOOKSYNC_API_KEY)).toMatch(/^\$\{HOOKSYNC_API_KEY:\?/);
  });

  it('runs the simulator on its default port, published as such, on all container interfaces', () => {
    const argv = strings(service('sim').command, 'sim.command');
    expect(Number(optionValue(argv, '--port'))).toBe(DEFAULT_SIM_PORT);
    expect(optionValue(argv, '--host')).toBe('0.0.0.0');
    expect(strings(service('sim').ports, 'sim.ports').map(containerPort)).toEqual([DEFAULT_SIM_PORT]);
    const check = strings(map(service('sim').healthcheck, 'sim.healthcheck').test, 'test').join(' ');
    expect(check).toContain(`127.0.0.1:${DEFAULT_SIM_PORT}/.well-known/jwks.json`);
  });

  it('prints, inside compose, the simulator base URL the receiver uses (not 0.0.0.0)', () => {
    const argv = strings(service('sim').command, 'sim.command');
    const env = Object.fromEntries(
      Object.entries(environment('hooksync')).map(([k, v]) => [k, withDefaults(String(v ?? ''))]),
    );
    expect(optionValue(argv, '--public-url')).toBe(loadConfig(env).apiBaseUrl);
  });

  it('builds the image once: only hooksync has build:, sim runs the same image and is never pulled', () => {
    expect(service('hooksync').build).toBeDefined();
    expect(service('sim').build).toBeUndefined();
    expect(service('sim').image).toBe(service('hooksync').image);
    expect(service('sim').pull_policy).toBe('never');
  });

  it('waits for Postgres on TCP, as hooksync connects, not on its Unix socket', () => {
    const check = strings(map(service('postgres').healthcheck, 'healthcheck').test, 'test').join(' ');
    expect(check).toMatch(/pg_isready\b.*(-h|--host)[ =]127\.0\.0\.1/);
  });

  it('says it needs Compose v2', () => {
    expect(read('docker-compose.yml')).toMatch(/Compose v2/);
  });
});

describe('Dockerfile', () => {
  const instructions = readDockerfile(read('Dockerfile'));
  const lastStage = Math.max(...instructions.map((i) => i.stage));
  const runtime = instructions.filter((i) => i.stage === lastStage);
  const one = (keyword: string, list: DockerInstruction[] = runtime) => {
    const found = list.filter((i) => i.keyword === keyword);
    expect(found, keyword).toHaveLength(1);
    return found[0]?.args ?? '';
  };

  it('builds in one stage with the toolchain better-sqlite3 needs, and runs on node:20-slim in another', () => {
    expect(lastStage).toBeGreaterThanOrEqual(1);
    const build = instructions.filter((i) => i.stage === 0);
    const buildRuns = build
      .filter((i) => i.keyword === 'RUN')
      .map((i) => i.args)
      .join('\n');
    for (const word of ['python3', 'make', 'g++', 'npm ci', 'npm run build'])
      expect(buildRuns).toContain(word);
    expect(one('FROM')).toMatch(/^node:20-slim\b/);
    const copies = runtime.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    for (const part of ['dist', 'templates', 'node_modules'])
      expect(copies.some((c) => c.includes(`/app/${part}`))).toBe(true);
    expect(copies.some((c) => /\bsrc\b/.test(c))).toBe(false);
  });

  it('names no build frontend to fetch (no `# syntax=` line) and ships no better-sqlite3 build leftovers', () => {
    expect(read('Dockerfile')).not.toMatch(/^#\s*syntax\s*=/im);
    const buildRuns = instructions
      .filter((i) => i.stage === 0 && i.keyword === 'RUN')
      .map((i) => i.args)
      .join('\n');
    const prune = buildRuns.indexOf('npm prune');
    const cleanup = buildRuns.indexOf('better_sqlite3.node');
    expect(prune).toBeGreaterThan(-1);
    expect(cleanup).toBeGreaterThan(prune);
    expect(buildRuns).toMatch(/rm -rf deps src/);
  });

  it('runs as a non-root user, exposes the default port, listens on 0.0.0.0, and starts `hooksync serve`', () => {
    expect(one('USER')).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime.findIndex((i) => i.keyword === 'USER')).toBeLessThan(
      runtime.findIndex((i) => i.keyword === 'ENTRYPOINT'),
    );
    expect(Number(one('EXPOSE'))).toBe(DEFAULT_PORT);
    const env = Object.assign(
      {},
      ...runtime.filter((i) => i.keyword === 'ENV').map((i) => readEnvPairs(i.args)),
    ) as Record<string, string>;
    expect(env.HOOKSYNC_HOST).toBe('0.0.0.0');
    expect(Object.keys(env).filter((k) => k.startsWith('HOOKSYNC_') && !KNOWN_VARIABLES.has(k))).toEqual([]);
    expect(JSON.parse(one('ENTRYPOINT'))).toEqual(['hooksync']);
    const cmd = JSON.parse(one('CMD')) as string[];
    expect(cmd).toEqual(['serve']);
    expect(commandProblems(program, cmd)).toEqual([]);
    // The hooksync on PATH is the package's bin.
    const bin = (JSON.parse(read('package.json')) as { bin: Record<string, string> }).bin.hooksync;
    expect(
      runtime.some(
        (i) => i.keyword === 'RUN' && i.args.includes(`ln -s /app/${bin} /usr/local/bin/hooksync`),
      ),
    ).toBe(true);
  });

  it('keeps build inputs in the context and secrets, databases and dependencies out (.dockerignore)', () => {
    const ignored = read('.dockerignore')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    for (const pattern of ['node_modules', 'dist', '.git', '*.db', '.env'])
      expect(ignored).toContain(pattern);
    for (const needed of [
      'src',
      'templates',
      'scripts',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
    ]) {
      expect(ignored.some((p) => p === needed || p === `${needed}/` || needed.startsWith(`${p}/`))).toBe(
        false,
      );
    }
    const copied = instructions
      .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    for (const source of copied) expect(ignored).not.toContain(source);
  });

  describe('HEALTHCHECK against a real receiver', () => {
    let keySet: Server;
    let running: RunningReceiver | undefined;
    let dir: string;
    let port = 0;
    let script = '';
    const runCheck = (checkPort: number) =>
      new Promise<number>((resolve) => {
        const env = { PATH: process.env.PATH ?? '', HOOKSYNC_PORT: String(checkPort) };
        execFile(process.execPath, ['-e', script], { env, timeout: 10_000 }, (error) => {
          resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : 1);
        });
      });

    beforeAll(async () => {
      const args = one('HEALTHCHECK').replace(/^(--[a-z-]+=\S+\s+)*/, '');
      const argv = args.startsWith('CMD ') ? (JSON.parse(args.slice(4)) as string[]) : [];
      expect(argv.slice(0, 2)).toEqual(['node', '-e']);
      script = argv[2] ?? '';
      // A key-set endpoint that fails: the receiver still starts (and is live, though not ready).
      keySet = createServer((_req, res) => res.writeHead(500).end());
      await new Promise<void>((resolve) => keySet.listen(0, '127.0.0.1', resolve));
      dir = mkdtempSync(join(tmpdir(), 'hooksync-deploy-'));
      const config = loadConfig({
        HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
        HOOKSYNC_JWKS_URL: `http://127.0.0.1:${(keySet.address() as AddressInfo).port}/.well-known/jwks.json`,
      });
      running = await startReceiver({ config, port: 0, storeWorkerUrl: BUILT_STORE_WORKER });
      port = Number(new URL(running.url).port);
    });
    afterAll(async () => {
      await running?.close();
      await new Promise((resolve) => keySet?.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    it('asks /healthz, which the receiver serves', async () => {
      expect(script).toContain('/healthz');
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(await runCheck(port)).toBe(0);
    });

    it('fails when nothing answers', async () => {
      await running?.close();
      running = undefined;
      expect(await runCheck(port)).toBe(1);
    });
  });
});
