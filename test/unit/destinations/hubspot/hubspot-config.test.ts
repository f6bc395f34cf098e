/** The hubspot entry of the destinations file: defaults, the token from the environment only, the rate. */
import { describe, expect, it } from 'vitest';
import { parseDestinations } from '../../../../src/destinations/load-destinations.js';
import { ConfigError } from '../../../../src/errors.js';

const TOKEN = 'pat-na1-00000000-1111-2222-3333-444444444444';
const crm = (extra: Record<string, unknown> = {}) => ({
  name: 'crm',
  type: 'hubspot',
  token: { env: 'HUBSPOT_TOKEN' },
  ...extra,
});

async function problem(entry: unknown, env: Record<string, string> = { HUBSPOT_TOKEN: TOKEN }) {
  try {
    await parseDestinations({ destinations: [entry] }, env, 'd.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain(TOKEN);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('hubspot destinations', () => {
  it('takes the defaults of issue 18: fill-empty, 90/10s, batches of 100, one batch at a time', async () => {
    const [configured] = await parseDestinations(
      { destinations: [crm()] },
      { HUBSPOT_TOKEN: TOKEN },
      'd.json',
    );
    expect(configured!.type).toBe('hubspot');
    expect(configured!.dispatch).toMatchObject({
      concurrency: 1,
      rate: undefined,
      batch: { size: 100, lingerMs: 500 },
    });
    expect(JSON.stringify(configured)).not.toContain(TOKEN);
  });

  it('refuses a token that is not in the environment, or typed into the file', async () => {
    expect(await problem(crm(), {})).toBe(
      'd.json: destination "crm", field token: environment variable HUBSPOT_TOKEN is not set',
    );
    expect(await problem(crm({ token: TOKEN }))).toMatch(/^d\.json: destination "crm", field token: /);
  });

  it('names a bad rate, write policy, field policy or key', async () => {
    expect(await problem(crm({ rate: '90 per 10s' }))).toBe(
      'd.json: destination "crm", field rate: must be <requests>/<duration>, e.g. 90/10s',
    );
    expect(await problem(crm({ write: 'merge' }))).toMatch(/field write: /);
    expect(await problem(crm({ fields: { jobtitle: 'always' } }))).toMatch(/field fields\.jobtitle: /);
    expect(await problem(crm({ company_key: 'Domain Key' }))).toMatch(
      /field company_key: must be a HubSpot property name/,
    );
  });
});
