// Runs Biome's binary for this platform. The project depends on the platform package directly
// (@biomejs/cli-linux-x64, as a dev and optional dependency) rather than on @biomejs/biome, whose ten
// per-platform optional packages are not all on the registry these machines reach: npm then writes a
// lockfile that `npm ci` refuses.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const binary = fileURLToPath(
  new URL(`../node_modules/@biomejs/cli-${process.platform}-${process.arch}/biome`, import.meta.url),
);
if (!existsSync(binary)) {
  console.error(`biome: no binary for ${process.platform}-${process.arch} (only linux-x64 is a dependency)`);
  process.exit(1);
}
const result = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit' });
process.exit(result.status ?? 1);
