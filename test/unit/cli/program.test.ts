import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';

const COMMANDS = [
  'serve',
  'sim',
  'track',
  'reconcile',
  'jobs',
  'export',
  'templates',
  'migrate',
  'reveal',
  'launch',
  'quarantine',
  'purge',
  'watches',
  'demo',
];

describe('hooksync CLI frame', () => {
  it('lists every command in --help on stdout and exits 0', async () => {
    const run = await runCliCaptured(['--help']);
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(run.stderr).toBe('');
  });

  it('lists the sub-commands of jobs, templates and quarantine', async () => {
    expect((await runCliCaptured(['jobs', '--help'])).stdout).toMatch(/list[\s\S]*get/);
    expect((await runCliCaptured(['templates', '--help'])).stdout).toMatch(/list[\s\S]*show/);
    expect((await runCliCaptured(['quarantine', '--help'])).stdout).toMatch(/list/);
  });

  it('shows an example per operation in launch --help', async () => {
    const run = await runCliCaptured(['launch', '--help']);
    expect(run.code).toBe(0);
    for (const op of ['search', 'job-change', 'reveal']) {
      expect(run.stdout).toMatch(new RegExp(`^  ${op}\\b`, 'm'));
      expect(run.stdout).toContain(`hooksync launch ${op} --from`);
    }
    expect((await runCliCaptured(['launch', 'search', '--help'])).stdout).toContain('--pages <n>');
  });

  it('fails an unknown command with a usage error on stderr', async () => {
    const run = await runCliCaptured(['nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown command 'nope'/);
    expect(run.stdout).toBe('');
  });

  it('prints the version', async () => {
    const run = await runCliCaptured(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
