#!/usr/bin/env node
/**
 * What `hooksync serve` loads at start (issue 44): the built CLI started with its default configuration,
 * with no destination and with one webhook destination, until it listens; every ES module any of its
 * threads loaded is counted (a module hook, bench/lib/log-loaded-modules.mjs), and those of destination
 * types (a CRM's folder, the CRM core, webhook-destination, file-destination) named. With --base-dist DIR
 * (default $HOOKSYNC_BENCH_REFERENCE_DIST) the same for another build.
 *
 *   npm run build && node bench/serve-modules.mjs [--base-dist DIR]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';

const HOOK = fileURLToPath(new URL('./lib/log-loaded-modules.mjs', import.meta.url));
const DESTINATION_MODULE = /destinations\/(hubspot|salesforce|pipedrive|crm)\/|[a-z]+-destination\.js$/;
const { values: flags } = parseArgs({ options: { 'base-dist': { type: 'string' } } });
const builds = [{ name: 'this build', dist: fileURLToPath(new URL('../dist/', import.meta.url)) }];
const baseDist = flags['base-dist'] ?? (process.env.HOOKSYNC_BENCH_REFERENCE_DIST || undefined);
if (baseDist) builds.push({ name: `reference ${baseDist}`, dist: baseDist });
const jwks = await startJwksServer([]);

async function loadedAtStart(dist, destinations) {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-modules-'));
  const log = join(dir, 'loaded.txt');
  await writeFile(log, '');
  const env = {
    PATH: process.env.PATH,
    HOOKSYNC_BENCH_LOAD_LOG: log,
    HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
    HOOKSYNC_JWKS_URL: jwks.url,
    HOOKSYNC_PORT: '0',
    HOOKSYNC_LOG_LEVEL: 'info',
  };
  if (destinations !== undefined) {
    env.HOOKSYNC_DESTINATIONS = join(dir, 'destinations.json');
    await writeFile(env.HOOKSYNC_DESTINATIONS, JSON.stringify({ destinations }));
  }
  const child = spawn(process.execPath, ['--import', HOOK, join(dist, 'cli/main.js'), 'serve'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let err = '';
    await new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        err += chunk;
        if (/is listening/.test(err)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${err}`)));
    });
    const modules = new Set((await readFile(log, 'utf8')).split('\n').filter(Boolean));
    const destination = [...modules].filter((url) => DESTINATION_MODULE.test(url));
    return { modules: modules.size, destination };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve()));
    await rm(dir, { recursive: true, force: true });
  }
}

const webhook = [
  {
    name: 'hook',
    type: 'webhook',
    url: 'http://127.0.0.1:9/hook',
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  },
];
const rows = [];
for (const build of builds) {
  for (const [label, destinations] of [
    ['no destination', undefined],
    ['one webhook destination', webhook],
  ]) {
    const { modules, destination } = await loadedAtStart(build.dist, destinations);
    const names = destination.map((url) => url.replace(/^.*\/dist\//, '')).join(', ');
    rows.push(
      `| ${build.name} | ${label} | ${modules} | ${destination.length}${destination.length > 0 && destination.length <= 3 ? ` (${names})` : ''} |`,
    );
  }
}
await jwks.close();
console.log(
  [
    ...ownMachineLines(),
    `Command: \`node bench/serve-modules.mjs${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}\``,
    '',
    '| build | configuration | ES modules loaded until serve listens (all threads, node_modules included) | of destination types |',
    '|---|---|---:|---:|',
    ...rows,
  ].join('\n'),
);
