/**
 * The watches commands end to end (in-process CLI, SQLite, the simulator): a bad watches file stopped with
 * one line naming the watch and field (also by serve, before it listens), `watches run` (and its dry run),
 * `watches list`, `watches changes`, and `export --watch` writing the new movers only, with their carried id.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { championsWatch, contactsCsv, writeWatchesEnv } from '../../helpers/watches-env.js';

const EMAILS = ['ann.lee@acme.com', 'bo.chen@acme.com', 'cy.diaz@acme.com'];

describe('hooksync watches', () => {
  let dir: string;
  let sim: Simulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hooksync-watches-cli-'));
    sim = await createSimulator({ seed: 5 });
    await writeFile(join(dir, 'contacts.csv'), contactsCsv(EMAILS.map((e, i) => [e, `003B${i}`] as const)));
    env = await writeWatchesEnv(sim, dir, [championsWatch({ every: '30d', max_usd_per_cycle: 40 })]);
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a bad watches file with one line naming the watch and the field, serve too', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        watches: [
          { name: 'ok', launch: 'job-change', from: { file: 'contacts.csv' }, every: '1d' },
          {
            name: 'vps',
            launch: 'search',
            from: { file: 'a.csv' },
            set: { seniorities: ['Boss'] },
            every: '2s',
          },
        ],
      }),
    );
    const listed = await runCliCaptured(['watches', 'list', '--watches', bad], { env });
    expect(listed.code).not.toBe(0);
    expect(listed.stderr.trim().split('\n')).toHaveLength(1);
    expect(listed.stderr).toContain(
      `watches file ${bad}: watch "vps", field every: "2s" is shorter than the least period, 10s`,
    );
    const served = await runCliCaptured(['serve', '--watches', bad, '--port', '0'], { env });
    expect(served.code).not.toBe(0);
    expect(served.stderr).toContain('watch "vps", field every');
  }, 60_000);

  it('runs a cycle, lists it, lists the changes, and exports the new movers with their carried id', async () => {
    const dry = await runCliCaptured(['watches', 'run', 'champions', '--dry-run', '--json'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ rows: 3, would_check: 3, invalid: 0 });
    expect(sim.jobs()).toHaveLength(0);

    for (const email of EMAILS)
      sim.setJobChange({ professional_email: email }, { job_change_status: 'no_change' });
    const first = await runCliCaptured(['watches', 'run', 'champions', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      watch: 'champions',
      cycle: 1,
      rows: 3,
      invalid: 0,
      duplicates: 0,
      checked: 3,
      baseline: 3,
      changes: 0,
      usd: 0.06,
      stopped: null,
    });

    sim.setJobChange(
      { professional_email: EMAILS[1]! },
      { job_change_status: 'moved', company_domain: 'new.io', company_name: 'New', title: 'CRO' },
    );
    // On a terminal the run draws its progress on stderr; the summary stays on stdout.
    const second = await runCliCaptured(['watches', 'run', 'champions', '--json'], {
      env,
      interactive: true,
    });
    expect(second.stderr).toMatch(/\rchampions: [1-3]\/3 checked, \$0\.0[246]/);
    expect(JSON.parse(second.stdout)).toMatchObject({
      cycle: 2,
      checked: 3,
      baseline: 0,
      changes: 1,
      stopped: null,
    });

    const listed = await runCliCaptured(['watches', 'list', '--json'], { env });
    expect(JSON.parse(listed.stdout).watches[0]).toMatchObject({
      name: 'champions',
      cycle: 2,
      rows: 3,
      checked: 3,
      changes: 1,
      usd: 0.06,
      running: false,
    });
    // The next check is when the 30-day period of the latest cycle ends.
    const entry = JSON.parse(listed.stdout).watches[0];
    expect(Date.parse(entry.next_check) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const text = await runCliCaptured(['watches', 'list'], { env });
    expect(text.stdout).toContain(
      'champions  job-change  every 2592000s  cycle 2: 3/3 checked, 1 changes, $0.06 spent; next check',
    );

    const changes = await runCliCaptured(['watches', 'changes', 'champions', '--since', '7d', '--json'], {
      env,
    });
    const shown = JSON.parse(changes.stdout).changes;
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({
      change: 'moved',
      custom_fields: { sf_id: '003B1' },
      before: { status: 'no_change' },
      after: { status: 'moved', company_domain: 'new.io', company_name: 'New', title: 'CRO' },
    });
    expect(shown[0].key).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.now() - Date.parse(shown[0].detected_at)).toBeLessThan(7 * 86_400_000);
    // --since leaves out what was found before the span.
    const none = await runCliCaptured(['watches', 'changes', 'champions', '--since', '0s', '--json'], {
      env,
    });
    expect(JSON.parse(none.stdout).changes).toEqual([]);

    const template = join(dir, 'movers.json');
    await writeFile(
      template,
      JSON.stringify({
        name: 'movers',
        description: 'movers with their Salesforce id',
        source: 'persons',
        dialect: 'crm-import',
        filter: { job_change_status: ['moved', 'left'] },
        columns: [
          { header: 'Id', field: 'task.custom_fields.sf_id' },
          { header: 'Company', field: 'company_name' },
          { header: 'Title', field: 'title' },
        ],
      }),
    );
    const exported = await runCliCaptured(
      ['export', '--watch', 'champions', '--changes-since', '7d', '--template', template],
      { env },
    );
    expect(exported.code, exported.stderr).toBe(0);
    expect(parse(exported.stdout)).toEqual([
      ['Id', 'Company', 'Title'],
      ['003B1', 'New', 'CRO'],
    ]);
  }, 120_000);
});
