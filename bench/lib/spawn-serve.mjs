/**
 * A build's `hooksync serve` as a child process, for the benches that measure the process itself
 * (onward-latency, serve-idle, hostile-memory): a fresh SQLite file in a temporary folder, port 0, info logs
 * on stderr (where the listening URL is read from), and the delivery the service would POST.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How much of serve's stderr is kept for the error when it exits early. */
const KEPT_LOG_CHARS = 64 * 1024;

/**
 * Starts `node CLI serve` with the key set at `jwksUrl`, `destinations` (a document, written to the folder)
 * when given, and `env` on top; resolves once serve logs its URL. `stop()` ends it and removes the folder.
 */
export async function spawnServe({ cli, jwksUrl, destinations, env = {}, prefix = 'hooksync-bench-' }) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const databaseFile = join(dir, 'hooksync.db');
  const destinationsEnv = {};
  if (destinations !== undefined) {
    destinationsEnv.HOOKSYNC_DESTINATIONS = join(dir, 'destinations.json');
    await writeFile(destinationsEnv.HOOKSYNC_DESTINATIONS, JSON.stringify(destinations));
  }
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: {
      PATH: process.env.PATH,
      HOOKSYNC_DATABASE_URL: databaseFile,
      HOOKSYNC_JWKS_URL: jwksUrl,
      HOOKSYNC_PORT: '0',
      HOOKSYNC_LOG_LEVEL: 'info',
      ...destinationsEnv,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let exit;
  let logBytes = 0;
  let log = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  void exited.then((code) => {
    exit = code;
  });
  const stop = async () => {
    if (exit === undefined) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        logBytes += chunk.length;
        if (log.length < KEPT_LOG_CHARS) log += chunk;
        const match = /"url":"(http:\/\/[^"]+)"/.exec(log);
        if (match) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`serve exited (${code}):\n${log.slice(0, 4000)}`)));
    });
    return {
      url,
      pid: child.pid,
      databaseFile,
      /** serve's exit code or signal; undefined while it runs. */
      exit: () => exit,
      /** Bytes serve has written to stderr. */
      logBytes: () => logBytes,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** POSTs `body` to serve's /webhooks signed for `jobId`, as the service would; resolves to the status. */
export async function deliverSigned(url, signer, jobId, body) {
  const response = await fetch(`${url}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signer.signBody(body, jobId) },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}
