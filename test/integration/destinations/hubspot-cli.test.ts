/** `hooksync destinations setup|replay --dry-run|test|list|deliver` for a HubSpot destination, in-process, against the stand-in. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { type HubSpotStandIn, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { storeFixtures } from './destinations-context.js';

let dir: string;
let hs: HubSpotStandIn;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-hubspot-cli-'));
  hs = await startHubSpotStandIn();
  const file = join(dir, 'destinations.json');
  writeFileSync(
    file,
    JSON.stringify({
      destinations: [{ name: 'crm', type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hs.url }],
    }),
  );
  env = { HOOKSYNC_DATABASE_URL: join(dir, 'cli.db'), HOOKSYNC_DESTINATIONS: file, HUBSPOT_TOKEN: hs.token };
});
afterAll(async () => {
  await hs.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hooksync destinations for a HubSpot destination', () => {
  it('setup --dry-run says, setup does, once; replay --dry-run shows the plan; deliver writes; list counts', async () => {
    hs.seed('companies', { name: 'Acme (rep)', domain: 'acme-robotics.com' });
    // The routing first (any destinations command records it), then the jobs.
    expect((await runCliCaptured(['destinations', 'list'], { env })).code).toBe(0);
    await storeFixtures(env.HOOKSYNC_DATABASE_URL!, ['company-reveal', 'search-contact']);

    const dry = await runCliCaptured(['destinations', 'setup', 'crm', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would create companies property hooksync_domain (unique)');
    expect(dry.stdout).toMatch(/would adopt company \d+ \(acme-robotics\.com\)/);
    expect(hs.propertyDefinitions('companies').some((d) => d.name === 'hooksync_domain')).toBe(false);

    const done = await runCliCaptured(['destinations', 'setup', 'crm'], { env });
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/adopted company \d+ \(acme-robotics\.com\)/);
    const again = await runCliCaptured(['destinations', 'setup', 'crm', '--json'], { env });
    expect(JSON.parse(again.stdout)).toMatchObject({ properties: [], adopted: [], alreadyKeyed: 1 });

    const plan = await runCliCaptured(
      ['destinations', 'replay', 'crm', '--since', '2000-01-01T00:00:00Z', '--dry-run'],
      { env },
    );
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(
      /^update companies acme-robotics\.com: .*industry: \(empty\) → "INDUSTRIAL_AUTOMATION"/m,
    );
    expect(plan.stdout).not.toMatch(/acme-robotics\.com: .*name:/);
    expect(plan.stdout).toContain('create contacts https://www.linkedin.com/in/tobias-brandt');
    expect(plan.stdout).toMatch(/crm \(dry run, nothing written\): 2 event\(s\); 2 to create, 1 to update/);
    expect(hs.records('contacts')).toEqual([]);
    const json = JSON.parse(
      (
        await runCliCaptured(
          ['destinations', 'replay', 'crm', '--since', '2000-01-01T00:00:00Z', '--dry-run', '--json'],
          { env },
        )
      ).stdout,
    );
    expect(json.dry_run).toBe(true);
    expect(json.calls).toBeGreaterThan(0);

    expect((await runCliCaptured(['destinations', 'test', 'crm'], { env })).stdout).toContain(
      'crm: checked: the token reads contacts and companies',
    );
    const deliver = await runCliCaptured(['destinations', 'deliver'], { env });
    expect(deliver.stdout).toContain('crm: 2 delivered');
    expect(hs.records('companies')).toHaveLength(1);
    expect(hs.records('contacts')).toHaveLength(2);
    const list = await runCliCaptured(['destinations', 'list'], { env });
    expect(list.stdout).toMatch(
      // Search's window is per process: commands run back to back may meet its SECONDLY limit, waited out.
      /^crm: companies 1 updated; contacts 2 created; \d+ API calls;( 429s: secondly \d+;)? daily allowance left \d+$/m,
    );
    expect(list.stdout + plan.stdout + done.stdout).not.toContain(hs.token);
  }, 60_000);
});
