/**
 * For tests that spawn the real `hooksync` executable (a SIGKILL between acknowledgement and restart can
 * only be tested on a real process): builds dist/ when it is older than the sources.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Path of the built executable. */
export const BUILT_CLI = join(root, 'dist/cli/main.js');

/**
 * The built store worker, for tests that start a receiver or a worker job store from the sources (worker
 * threads run JavaScript only). The global setup builds it before any test runs.
 */
export const BUILT_STORE_WORKER = pathToFileURL(join(root, 'dist/storage/job-store/store-worker.js'));

/** Builds dist/ unless it is current; returns the executable's path. */
export function ensureBuilt(): string {
  const built = BUILT_CLI;
  if (existsSync(built) && statSync(built).mtimeMs >= newestMtime(join(root, 'src'))) return built;
  // As `npm run build` does: a module deleted from src/ must not linger in dist/ (or in the package).
  execFileSync(process.execPath, [join(root, 'scripts/clean-dist.mjs')], { cwd: root, stdio: 'inherit' });
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  execFileSync(process.execPath, [join(root, 'scripts/post-build.mjs')], { cwd: root, stdio: 'inherit' });
  return built;
}
