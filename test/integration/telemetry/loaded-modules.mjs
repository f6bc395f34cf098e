/**
 * Starts the built receiver (an in-memory database) with the telemetry the environment asks for, as serve
 * does, and prints which OpenTelemetry packages are loaded: argv[2] is the dist/ folder.
 */
import { createRequire } from 'node:module';

const dist = process.argv[2];
const { startReceiver } = await import(`${dist}/server/start-receiver.js`);
const { loadConfig } = await import(`${dist}/config/load-config.js`);
const { startCliTelemetry } = await import(`${dist}/cli/start-cli-telemetry.js`);
const telemetry = await startCliTelemetry(process.env);
const config = loadConfig(
  { HOOKSYNC_DATABASE_URL: ':memory:', HOOKSYNC_JWKS_URL: 'http://127.0.0.1:9/jwks.json' },
  { port: 0 },
);
const running = await startReceiver({ config, telemetry });
const packages = new Set(
  Object.keys(createRequire(import.meta.url).cache)
    .map((file) => /node_modules\/(@opentelemetry\/[^/]+)\//.exec(file)?.[1])
    .filter((name) => name !== undefined),
);
process.stdout.write(`${JSON.stringify([...packages].sort())}\n`);
await running.close();
await telemetry?.shutdown(100);
