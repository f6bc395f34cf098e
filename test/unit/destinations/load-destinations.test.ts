/** The destinations file: validated whole, one line naming destination, field and problem, no secret echoed. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDestinations, parseDestinations } from '../../../src/destinations/load-destinations.js';
import { ConfigError } from '../../../src/errors.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

function hook(extra: Record<string, unknown> = {}) {
  return {
    name: 'warehouse',
    type: 'webhook',
    url: 'https://ingest.example/hooksync',
    secret: SECRET,
    ...extra,
  };
}

async function problem(document: unknown, env: Record<string, string> = {}): Promise<string> {
  try {
    await parseDestinations(document, env, 'destinations file d.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseDestinations', () => {
  it('reads the example of the issue, with the defaults filled in', async () => {
    const [warehouse, drop] = await parseDestinations(
      {
        destinations: [
          hook({
            secret: { env: 'WAREHOUSE_WEBHOOK_SECRET' },
            kinds: ['search_contact', 'job_change'],
            timeout: '10s',
            retry: { schedule: ['5s', '30s', '2m', '10m', '30m', '1h', '2h', '4h', '8h', '8h'] },
          }),
          {
            name: 'salesforce-drop',
            type: 'file',
            template: 'salesforce-leads',
            directory: '/tmp/x',
            cron: '30 3 * * *',
          },
        ],
      },
      { WAREHOUSE_WEBHOOK_SECRET: SECRET },
      'd.json',
    );
    expect(warehouse!.dispatch).toMatchObject({ timeoutMs: 10_000, kinds: ['search_contact', 'job_change'] });
    expect(warehouse!.dispatch!.scheduleMs).toHaveLength(10);
    expect(drop!.dispatch).toBeUndefined();
    // Nothing printable holds the secret.
    expect(JSON.stringify([warehouse, drop])).not.toContain(SECRET.slice(6));
  });

  it('defaults to every kind, a 10 s timeout and the day-long schedule', async () => {
    const [only] = await parseDestinations({ destinations: [hook()] }, {}, 'd.json');
    expect(only!.dispatch).toMatchObject({ timeoutMs: 10_000, concurrency: 4, kinds: undefined });
    expect(only!.dispatch!.scheduleMs.reduce((a, b) => a + b, 0)).toBe(
      (5 + 30 + 120 + 600 + 1800 + 3600 + 7200 + 14_400 + 28_800 + 28_800) * 1000,
    );
  });

  it.each([
    [
      hook({ retry: { schedule: ['5s', '2x'] } }),
      'destination "warehouse", field retry.schedule[1]: "2x" is not a duration',
    ],
    [hook({ url: 'ftp://x' }), 'destination "warehouse", field url: must be an http(s) URL'],
    [hook({ kinds: ['people'] }), 'destination "warehouse", field kinds[0]'],
    [hook({ colour: 'red' }), 'destination "warehouse", field'],
    [
      { ...hook(), type: 'carrier-pigeon' },
      'destination "warehouse", field type: must be one of webhook, file',
    ],
    [
      hook({ secret: { env: 'NOPE' } }),
      'destination "warehouse", field secret: environment variable NOPE is not set',
    ],
    [hook({ template: 'no-such-template' }), 'destination "warehouse", field template'],
    [
      { name: 'drop', type: 'file', template: 'persons', directory: '/tmp', cron: 'every day' },
      'destination "drop", field cron',
    ],
  ])('names the destination, the field and the problem (%#)', async (entry, expected) => {
    expect(await problem({ destinations: [entry] })).toContain(expected);
  });

  it('lets every destination that has kinds take watch_change by name; every kind, the default, stays job kinds', async () => {
    const crms = [
      { name: 'hs', type: 'hubspot', token: { env: 'HS' } },
      { name: 'pd', type: 'pipedrive', token: { env: 'PD' }, base_url: 'https://acme.pipedrive.com' },
      {
        name: 'sf',
        type: 'salesforce',
        login_url: 'https://acme.my.salesforce.com',
        auth: {
          grant: 'client_credentials',
          client_id: { env: 'SF_ID' },
          client_secret: { env: 'SF_SECRET' },
        },
      },
    ];
    const env = { HS: 'pat-1', PD: 'token', SF_ID: 'id', SF_SECRET: 'secret' };
    const named = await parseDestinations(
      {
        destinations: [
          hook({ kinds: ['watch_change'] }),
          ...crms.map((d) => ({ ...d, kinds: ['job_change', 'watch_change'] })),
        ],
      },
      env,
      'destinations file d.json',
    );
    expect(named.map((d) => d.dispatch?.kinds)).toEqual([
      ['watch_change'],
      ['job_change', 'watch_change'],
      ['job_change', 'watch_change'],
      ['job_change', 'watch_change'],
    ]);
    const defaults = await parseDestinations({ destinations: crms }, env, 'destinations file d.json');
    expect(defaults.map((d) => d.dispatch?.kinds)).toEqual([undefined, undefined, undefined]);
    const message = await problem({ destinations: [{ ...crms[0], kinds: ['watch_changes'] }] }, env);
    expect(message).toContain('destination "hs", field kinds[0]');
    expect(message).toContain('watch_change');
    expect(message.split('\n')).toHaveLength(1);
  });

  it('refuses two destinations of one name', async () => {
    expect(await problem({ destinations: [hook(), hook()] })).toContain(
      'field name: used by another destination',
    );
  });

  it('never echoes a secret that is not a valid one', async () => {
    const bad = 'whsec_not base64 at all!';
    const message = await problem({ destinations: [hook({ secret: bad })] });
    expect(message).toContain('field secret');
    expect(message).not.toContain('not base64');
    const plain = 'sk_live_supersecretvalue';
    const other = await problem({ destinations: [hook({ secret: plain })] });
    expect(other).not.toContain('supersecret');
  });

  it('reads a file, and does not quote it when it is not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hooksync-dest-config-'));
    const file = join(dir, 'destinations.json');
    writeFileSync(file, `{ "destinations": [ { "secret": ${SECRET} } ] }`);
    await expect(loadDestinations(file, {})).rejects.toThrow(/is not valid JSON$/);
    await loadDestinations(file, {}).catch((error: Error) => expect(error.message).not.toContain(SECRET));
    writeFileSync(file, JSON.stringify({ destinations: [hook()] }));
    expect((await loadDestinations(file, {})).map((d) => d.name)).toEqual(['warehouse']);
  });
});

describe('a salesforce destination', () => {
  const entry = (auth: Record<string, unknown>, login_url = 'https://acme.my.salesforce.com') => ({
    destinations: [{ name: 'sf', type: 'salesforce', login_url, auth }],
  });
  const cc = {
    grant: 'client_credentials',
    client_id: { env: 'SF_CLIENT_ID' },
    client_secret: { env: 'SF_CLIENT_SECRET' },
  };

  it('resolves its grant credentials at load, and names only their sources when one is missing', async () => {
    const [sf] = await parseDestinations(
      entry(cc),
      { SF_CLIENT_ID: 'id', SF_CLIENT_SECRET: 'S3CR3T' },
      'd.json',
    );
    // Twice bulk_threshold (2,000): a backlog above it reaches the destination whole, for a Bulk job.
    expect(sf).toMatchObject({ name: 'sf', type: 'salesforce', dispatch: { batch: { size: 4000 } } });
    expect(JSON.stringify(sf)).not.toContain('S3CR3T');
    await expect(parseDestinations(entry(cc), { SF_CLIENT_ID: 'id' }, 'd.json')).rejects.toThrow(
      new ConfigError(
        'd.json: destination "sf", field auth.client_secret: environment variable SF_CLIENT_SECRET is not set',
      ),
    );
  });

  it('refuses a plain-http login URL that is not loopback nor allowed', async () => {
    const env = { SF_CLIENT_ID: 'id', SF_CLIENT_SECRET: 'S3CR3T' };
    await expect(parseDestinations(entry(cc, 'http://sf.internal'), env, 'd.json')).rejects.toThrow(
      /field login_url: must be https:\/\//,
    );
    const message = await parseDestinations(entry(cc, 'http://sf.internal'), env, 'd.json').catch(
      (e: Error) => e.message,
    );
    expect(message).not.toContain('S3CR3T');
    await expect(
      parseDestinations(
        entry(cc, 'http://sf.internal'),
        { ...env, HOOKSYNC_ALLOW_INSECURE_HTTP: 'sf.internal' },
        'd.json',
      ),
    ).resolves.toHaveLength(1);
  });
});
