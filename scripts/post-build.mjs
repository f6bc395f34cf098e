// Makes the built CLI executable, so `npx hooksync` works straight after `npm install` in a checkout.
import { chmodSync } from 'node:fs';

chmodSync(new URL('../dist/cli/main.js', import.meta.url), 0o755);
