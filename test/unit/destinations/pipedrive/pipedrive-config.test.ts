/** The pipedrive entry: its defaults, the token only from the environment, and the destination URL rule. */
import { describe, expect, it } from 'vitest';
import { parseDestinations } from '../../../../src/destinations/load-destinations.js';
import { PIPEDRIVE_DESTINATION } from '../../../../src/destinations/pipedrive/pipedrive-destination.js';

const entry = (extra: object = {}) => ({
  name: 'pd',
  type: 'pipedrive',
  base_url: 'https://acme.pipedrive.com',
  token: { env: 'PIPEDRIVE_TOKEN' },
  ...extra,
});
const parse = (extra: object = {}, env: Record<string, string> = { PIPEDRIVE_TOKEN: 'pd-secret-token' }) =>
  parseDestinations({ destinations: [entry(extra)] }, env, 'destinations file d.json');

describe('pipedrive configuration', () => {
  it('has the issue’s defaults', () => {
    const config = PIPEDRIVE_DESTINATION.schema.parse(entry());
    expect(config).toMatchObject({
      write: 'fill-empty',
      fields: {},
      org_key_field: 'Domain',
      person_key_field: 'LinkedIn URL',
      daily_token_share: 0.5,
      rate: { requests: 18, perMs: 2_000 },
    });
  });

  it('takes the token from the environment only, and names a missing variable', async () => {
    await expect(parse({ token: 'pd-secret-token' })).rejects.toThrow(/field token/);
    await expect(parse({}, {})).rejects.toThrow(/PIPEDRIVE_TOKEN is not set/);
    await expect(parse({ daily_token_share: 1.5 })).rejects.toThrow(/daily_token_share/);
  });

  it('refuses plain http to a host that is not loopback, and accepts loopback', async () => {
    await expect(parse({ base_url: 'http://acme.pipedrive.com' })).rejects.toThrow(/field base_url/);
    const [configured] = await parse({ base_url: 'http://127.0.0.1:8080' });
    expect(configured).toBeDefined();
  });
});
