/**
 * The package as a user gets it: `npm pack` holds only what it needs, installs into a new strict TypeScript
 * app (skipLibCheck false), where the README's library snippets type-check and run, the receiver one
 * storing a signed callback from the simulator.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator.js';
import { getJob } from '../../../src/storage/job-queries.js';
import { withMigratedDatabase } from '../../../src/storage/open-migrated-database.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const rootPackage = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  private?: boolean;
  dependencies: Record<string, string>;
};

/** What a package may hold: the build, the templates, the docs, and the files npm adds itself. */
const ALLOWED =
  /^(dist\/.+\.(js|d\.ts)|templates\/.+\.json|docs\/[a-z-]+\.md|README\.md|LICENSE|package\.json)$/;

/** The ```ts blocks of the README's library section, in order. */
function readmeSnippets(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Using it as a library'));
  const end = section.indexOf('\n## ', 1);
  return [...section.slice(0, end === -1 ? undefined : end).matchAll(/```ts\n([\s\S]*?)```/g)].map(
    (m) => m[1] ?? '',
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function answers(url: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      await fetch(url);
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return false;
}

describe('the packed package', { timeout: 240_000 }, () => {
  let dir = '';
  let tarball = '';
  let files: string[] = [];
  const app = () => join(dir, 'app');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-pack-'));
    // dist/ is built by the global setup; `prepare` would build it again.
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
    tarball = join(dir, packed.filename);
    files = packed.files.map((f) => f.path);
  }, 120_000);
  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('is publishable and holds the build, templates and docs only: no tests, fixtures, sources or maps', () => {
    expect(PACKAGE.private).toBeUndefined();
    expect(files.filter((f) => !ALLOWED.test(f))).toEqual([]);
    for (const needed of ['dist/index.js', 'dist/index.d.ts', 'dist/simulator.js', 'dist/cli/main.js'])
      expect(files).toContain(needed);
    expect(files.some((f) => f.startsWith('templates/'))).toBe(true);
  });

  it('installs into a new strict app where the README snippets type-check and run', async () => {
    mkdirSync(join(app(), 'src'), { recursive: true });
    writeFileSync(
      join(app(), 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    writeFileSync(
      join(app(), 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
          rootDir: 'src',
          outDir: 'dist',
        },
        include: ['src'],
      }),
    );
    const snippets = readmeSnippets();
    expect(snippets).toHaveLength(2);
    snippets.forEach((code, i) => {
      writeFileSync(join(app(), 'src', `snippet-${i + 1}.ts`), code);
    });

    // The repository's own versions, so that npm finds them in its cache; no install scripts: the SQLite
    // addon compiled for this repository (same version, same Node) is copied in instead of compiled again.
    const pinned = ['express', '@types/node'].map((name) => `${name}@${rootPackage(name).version}`);
    await run(
      'npm',
      ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball, ...pinned],
      { cwd: app(), maxBuffer: 16 * 1024 * 1024 },
    );
    const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    expect(rootPackage('better-sqlite3').version).toBe(
      (
        JSON.parse(readFileSync(join(app(), 'node_modules/better-sqlite3/package.json'), 'utf8')) as {
          version: string;
        }
      ).version,
    );
    mkdirSync(join(app(), 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    copyFileSync(join(ROOT, addon), join(app(), addon));

    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app() }).catch(
      (error: { stdout?: string }) => ({ stdout: `tsc failed:\n${error.stdout ?? String(error)}` }),
    );
    expect(checked.stdout).toBe('');

    // The simulator snippet runs to its end.
    const simulator = await run(process.execPath, ['dist/snippet-2.js'], { cwd: app(), timeout: 30_000 });
    expect(simulator.stdout).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+ http:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json\n$/,
    );

    // The receiver snippet stores a signed callback from a simulator.
    let sim: Simulator | undefined;
    const database = join(dir, 'consumer.db');
    const port = await freePort();
    sim = await createSimulator({ apiKey: 'pack-key', retryBaseMs: 50 });
    const child = execFile(process.execPath, ['dist/snippet-1.js'], {
      cwd: app(),
      env: {
        PATH: process.env.PATH ?? '',
        HOOKSYNC_API_BASE_URL: sim.url,
        HOOKSYNC_DATABASE_URL: database,
        PORT: String(port),
      },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    try {
      expect(await answers(`http://127.0.0.1:${port}/`, 20_000), stderr).toBe(true);
      const launched = await fetch(`${sim.url}/v1/company-reveal`, {
        method: 'POST',
        headers: { 'x-api-key': 'pack-key', 'content-type': 'application/json' },
        body: JSON.stringify({ ip: '203.0.113.7', webhook_url: `http://127.0.0.1:${port}/webhooks` }),
      });
      expect(launched.status).toBe(200);
      const jobId = sim.jobs()[0]?.job_id ?? '';
      const deliveries = await sim.waitForDeliveries();
      expect(deliveries.map((d) => d.status)).toEqual([200]);
      const stored = await withMigratedDatabase(database, ({ db }) => getJob(db, jobId));
      expect(stored?.source).toBe('webhook');
    } finally {
      child.kill();
      await sim.close();
      sim = undefined;
    }
  });
});
