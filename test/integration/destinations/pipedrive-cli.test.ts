/** `hooksync destinations setup|replay --dry-run|deliver|list` for a Pipedrive destination, in-process, against the stand-in. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { type PipedriveStandIn, startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { addTemplateFields } from '../../helpers/pipedrive/store.js';
import { storeFixtures } from './destinations-context.js';

let dir: string;
let pd: PipedriveStandIn;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-pipedrive-cli-'));
  pd = await startPipedriveStandIn({ indexLagMs: 0 });
  const file = join(dir, 'destinations.json');
  writeFileSync(
    file,
    JSON.stringify({
      destinations: [{ name: 'pd', type: 'pipedrive', token: { env: 'PIPEDRIVE_TOKEN' }, base_url: pd.url }],
    }),
  );
  env = {
    HOOKSYNC_DATABASE_URL: join(dir, 'cli.db'),
    HOOKSYNC_DESTINATIONS: file,
    PIPEDRIVE_TOKEN: pd.token,
  };
});
afterAll(async () => {
  await pd.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hooksync destinations for a Pipedrive destination', () => {
  it('setup creates the key fields and adopts; replay --dry-run shows the plan and its tokens; deliver spends them; list counts tokens', async () => {
    addTemplateFields(pd.store, { keys: false });
    expect((await runCliCaptured(['destinations', 'list'], { env })).code).toBe(0);
    await storeFixtures(env.HOOKSYNC_DATABASE_URL!, ['company-reveal', 'search-contact']);

    const dry = await runCliCaptured(['destinations', 'setup', 'pd', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would create companies property Domain');
    expect(dry.stdout).toContain('would create contacts property LinkedIn URL');
    expect(dry.stdout).toMatch(/; 40 token\(s\) spent$/m);
    const done = await runCliCaptured(['destinations', 'setup', 'pd'], { env });
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('created companies property Domain');
    const domain = pd.store.field('organizations', 'Domain')!.key;
    const acme = pd.store.insert('organizations', {
      name: 'Acme (typed)',
      custom_fields: { [domain]: 'acme-robotics.com' },
    });
    const adopted = await runCliCaptured(['destinations', 'setup', 'pd'], { env });
    expect(adopted.stdout).toContain(`adopted company ${acme.id} (acme-robotics.com)`);

    const plan = await runCliCaptured(
      ['destinations', 'replay', 'pd', '--since', '2000-01-01T00:00:00Z', '--dry-run'],
      { env },
    );
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(
      /^update companies acme-robotics\.com: .*Website: \(empty\) → "https:\/\/www\.acme-robotics\.com"/m,
    );
    const tokens = Number(/about \d+ API call\(s\), (\d+) token\(s\)$/m.exec(plan.stdout)?.[1]);
    expect(tokens).toBeGreaterThan(0);
    expect(pd.store.live('persons')).toEqual([]);

    const spent = pd.spent();
    const deliver = await runCliCaptured(['destinations', 'deliver'], { env });
    expect(deliver.stdout).toContain('pd: 2 delivered');
    expect(pd.spent() - spent).toBeLessThanOrEqual(tokens);
    expect(pd.store.live('organizations').map((o) => o.id)).toEqual([acme.id]);
    const list = await runCliCaptured(['destinations', 'list'], { env });
    expect(list.stdout).toMatch(
      /^pd: companies .*\d+ API calls; \d+ tokens spent; daily allowance left \d+$/m,
    );
    expect(list.stdout + plan.stdout + done.stdout).not.toContain(pd.token);
  }, 60_000);
});
