// Empties dist/ before a build, so that a module deleted from src/ never lingers in the build or the package.
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
