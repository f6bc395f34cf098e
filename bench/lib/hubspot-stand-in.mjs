/**
 * The HubSpot stand-in of the tests (test/helpers/hubspot/, TypeScript) for the benchmarks, in a child
 * process of its own so that its work is not counted against the destination under test. The child
 * transpiles the stand-in's files with TypeScript's transpileModule (no type check) into a temporary folder
 * laid out like the repository (its industry map is read relative to its own file), then starts it.
 *
 *   const standIn = await startStandInChild({ tenSecondly: 100 });  // { url, token, call, stop }
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { forkChild, serveChannel } from './child-channel.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = join(REPO, 'test/helpers/hubspot');

/** Starts the stand-in in a child; `options` are startHubSpotStandIn's. */
export async function startStandInChild(options = {}) {
  const child = forkChild(fileURLToPath(import.meta.url), ['--child']);
  const { url, token } = await child.call('start', options);
  return {
    url,
    token,
    /** `{ calls, rateLimited, records }` so far. */
    summary: () => child.call('summary'),
    /** Seeds contacts `from`…`from + count - 1` (and `companies` new companies), each `associateEvery`-th under a company. */
    seedContacts: (payload) => child.call('seedContacts', payload),
    stop: () => child.stop(),
  };
}

async function transpiled() {
  const ts = (await import('typescript')).default;
  const root = await mkdtemp(join(tmpdir(), 'hooksync-stand-in-'));
  const out = join(root, 'test/helpers/hubspot');
  await mkdir(out, { recursive: true });
  await symlink(join(REPO, 'templates'), join(root, 'templates'));
  const emit = async (from, to) => {
    const { outputText } = ts.transpileModule(await readFile(from, 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    });
    await writeFile(to, outputText);
  };
  for (const file of await readdir(SOURCE)) {
    if (!file.endsWith('.ts')) continue;
    await emit(join(SOURCE, file), join(out, file.replace(/\.ts$/, '.js')));
  }
  // What the stand-ins share (body reading, JSON, fault rules), imported as ../stand-in-http.js.
  await emit(join(SOURCE, '../stand-in-http.ts'), join(out, '../stand-in-http.js'));
  return { root, module: pathToFileURL(join(out, 'stand-in.js')).href };
}

if (process.argv.includes('--child')) {
  let standIn;
  let root;
  serveChannel({
    async start(options) {
      const built = await transpiled();
      root = built.root;
      const { defineSetUpProperties, startHubSpotStandIn } = await import(built.module);
      standIn = await startHubSpotStandIn(options);
      defineSetUpProperties(standIn);
      return { url: standIn.url, token: standIn.token };
    },
    seedContacts({ from = 0, count, companies = 0, associateEvery = 0, lifecycle = 'customer' }) {
      for (let i = 0; i < companies; i += 1) {
        standIn.seed('companies', { name: `Company ${i}`, domain: `company${i}.example` });
      }
      const companyIds = standIn.records('companies').map((company) => company.id);
      for (let i = from; i < from + count; i += 1) {
        const id = standIn.seed('contacts', {
          email: `contact.${i}@company${i % 500}.example`,
          firstname: `First${i}`,
          lastname: `Last${i}`,
          lifecyclestage: lifecycle,
        });
        if (associateEvery > 0 && companyIds.length > 0 && i % associateEvery === 0) {
          standIn.associatePrimary(id, companyIds[i % companyIds.length]);
        }
      }
      return { contacts: standIn.records('contacts').length };
    },
    summary() {
      const calls = standIn.calls();
      return {
        calls: calls.length,
        rateLimited: calls.filter((call) => call.status === 429).length,
        companies: standIn.records('companies').length,
        contacts: standIn.records('contacts').length,
      };
    },
    async stop() {
      await standIn?.close();
      if (root) await rm(root, { recursive: true, force: true });
    },
  });
}
