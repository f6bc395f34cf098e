/** `serve` and the destinations commands refuse a destination URL over plain http with one line, exit 2. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';

describe('a destination URL over plain http', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-destination-url-'));
    file = join(dir, 'destinations.json');
    writeFileSync(
      file,
      JSON.stringify({
        destinations: [
          {
            name: 'warehouse',
            type: 'webhook',
            url: 'http://ingest.example.net/hooksync',
            secret: { env: 'WAREHOUSE_SECRET' },
          },
        ],
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([[['serve', '--port', '0']], [['destinations', 'list']]])(
    '%j refuses it in one line naming the destination and field, exit 2',
    async (argv) => {
      const run = await runCliCaptured(
        [...argv, '--destinations', file, '--database-url', join(dir, 'h.db')],
        {
          env: {
            WAREHOUSE_SECRET: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
            HOOKSYNC_JWKS_URL: 'http://127.0.0.1:2/.well-known/jwks.json',
          },
        },
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `hooksync: destinations file ${file}: destination "warehouse", field url: must be https:// unless its host is loopback ` +
          '(got "http://ingest.example.net/hooksync"); set HOOKSYNC_ALLOW_INSECURE_HTTP=ingest.example.net (or 1, any host) ' +
          'to accept plain http on a trusted network (CONFIG_INVALID)\n',
      );
    },
  );
});
