/**
 * The Salesforce stand-in of the tests (test/helpers/salesforce/, TypeScript) for the benchmarks, in a child
 * process of its own so that its work is not counted against the destination under test: the child
 * transpiles the stand-in's files (and the shared test/helpers/stand-in-http.ts) with TypeScript's
 * transpileModule (no type check) into a temporary folder laid out like the repository (node_modules linked),
 * then starts it.
 *
 *   const standIn = await startSalesforceChild({ setUp: true, latencyMs: 100 });  // { url, clientId, clientSecret, summary, stop }
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { forkChild, serveChannel } from './child-channel.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Starts the stand-in in a child; `options` are startSalesforceStandIn's, and `latencyMs` for setLatency. */
export async function startSalesforceChild(options = {}) {
  const child = forkChild(fileURLToPath(import.meta.url), ['--child']);
  const started = await child.call('start', options);
  return {
    ...started,
    /** `{ calls, writes, reads, records, bulkJobs }` so far. */
    summary: () => child.call('summary'),
    stop: () => child.stop(),
  };
}

async function transpile(ts, from, to) {
  const { outputText } = ts.transpileModule(await readFile(from, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  });
  await writeFile(to, outputText);
}

async function transpiled() {
  const ts = (await import('typescript')).default;
  const root = await mkdtemp(join(tmpdir(), 'hooksync-sf-stand-in-'));
  const out = join(root, 'test/helpers/salesforce');
  await mkdir(out, { recursive: true });
  // The stand-in imports jose and csv-parse/csv-stringify: resolved from the repository's node_modules.
  await symlink(join(REPO, 'node_modules'), join(root, 'node_modules'));
  const source = join(REPO, 'test/helpers/salesforce');
  for (const file of await readdir(source))
    if (file.endsWith('.ts'))
      await transpile(ts, join(source, file), join(out, file.replace(/\.ts$/, '.js')));
  await transpile(
    ts,
    join(REPO, 'test/helpers/stand-in-http.ts'),
    join(root, 'test/helpers/stand-in-http.js'),
  );
  return { root, module: pathToFileURL(join(out, 'stand-in.js')).href };
}

if (process.argv.includes('--child')) {
  let standIn;
  let root;
  serveChannel({
    async start({ latencyMs = 0, ...options }) {
      const built = await transpiled();
      root = built.root;
      const { startSalesforceStandIn } = await import(built.module);
      standIn = await startSalesforceStandIn(options);
      standIn.setLatency(latencyMs);
      return { url: standIn.url, clientId: standIn.clientId, clientSecret: standIn.clientSecret };
    },
    summary() {
      const calls = standIn.calls().filter((call) => call.path.startsWith('/services/data/'));
      return {
        calls: calls.length,
        writes: calls.filter((call) => call.path.includes('/composite/sobjects')).length,
        reads: calls.filter((call) => call.path.includes('/query')).length,
        records: standIn.records('Account').length,
        bulkJobs: standIn.bulkJobs().length,
        timeline: standIn
          .calls()
          .map((call) => ({ path: call.path, at: call.at, answeredAt: call.answeredAt })),
      };
    },
    async stop() {
      await standIn?.close();
      if (root) await rm(root, { recursive: true, force: true });
    },
  });
}
