/**
 * Destination URLs follow the service's rule: https only, unless the host is loopback or named in
 * HOOKSYNC_ALLOW_INSECURE_HTTP; a refusal is one line naming the destination and the field.
 */
import { describe, expect, it } from 'vitest';
import { parseDestinations } from '../../../src/destinations/load-destinations.js';
import { ConfigError } from '../../../src/errors.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const webhook = (url: string) => ({ name: 'warehouse', type: 'webhook', url, secret: SECRET });
const hubspot = (base_url: string) => ({
  name: 'crm',
  type: 'hubspot',
  token: { env: 'HUBSPOT_TOKEN' },
  base_url,
});
const ENV = { HUBSPOT_TOKEN: 'pat-na1-00000000-0000-0000-0000-000000000000' };

async function refusal(entry: object, env: Record<string, string> = {}): Promise<string> {
  try {
    await parseDestinations({ destinations: [entry] }, { ...ENV, ...env }, 'destinations file d.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const accepted = (entry: object, env: Record<string, string> = {}) =>
  parseDestinations({ destinations: [entry] }, { ...ENV, ...env }, 'destinations file d.json');

describe('destination URLs', () => {
  it('refuses a webhook over plain http to another host, in one line naming destination and field', async () => {
    expect(await refusal(webhook('http://ingest.example.net/hooksync'))).toBe(
      'destinations file d.json: destination "warehouse", field url: must be https:// unless its host is loopback ' +
        '(got "http://ingest.example.net/hooksync"); set HOOKSYNC_ALLOW_INSECURE_HTTP=ingest.example.net ' +
        '(or 1, any host) to accept plain http on a trusted network',
    );
  });

  it("refuses a HubSpot base_url over plain http, and never echoes a URL's query", async () => {
    const message = await refusal(hubspot('http://hubspot-proxy.internal/?hapikey=secret'));
    expect(message).toMatch(
      /^destinations file d\.json: destination "crm", field base_url: must be https:\/\//,
    );
    expect(message).not.toContain('secret');
  });

  it.each([
    'https://ingest.example.net/hooksync',
    'http://127.0.0.1:9000/hooks',
    'http://localhost:9000/hooks',
    'http://[::1]:9000/hooks',
  ])('accepts %s', async (url) => {
    await expect(accepted(webhook(url))).resolves.toHaveLength(1);
    await expect(accepted(hubspot(url))).resolves.toHaveLength(1);
  });

  it('accepts plain http to a host HOOKSYNC_ALLOW_INSECURE_HTTP names, or to any host with 1', async () => {
    const env = { HOOKSYNC_ALLOW_INSECURE_HTTP: 'sim,ingest.example.net' };
    await expect(accepted(webhook('http://ingest.example.net/h'), env)).resolves.toHaveLength(1);
    await expect(accepted(hubspot('http://sim:8790'), env)).resolves.toHaveLength(1);
    expect(await refusal(webhook('http://other.example.net/h'), env)).toMatch(/field url: must be https/);
    await expect(
      accepted(webhook('http://other.example.net/h'), { HOOKSYNC_ALLOW_INSECURE_HTTP: '1' }),
    ).resolves.toHaveLength(1);
  });
});
