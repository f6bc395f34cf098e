/**
 * `hooksync sim` through runCli in-process: it prints its URL, key and key-set URL, serves, and stops
 * cleanly on the shutdown signal; bad flags are usage errors.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { simulatorOptionsFromFlags } from '../../../src/cli/commands/sim.js';
import type { CliContext } from '../../../src/cli/context.js';
import { runCli } from '../../../src/cli/run-cli.js';
import { until } from '../../helpers/until.js';
import { callSim } from './helpers/sim-http.js';

function fakeContext(env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const output = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString('utf8');
  });
  stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString('utf8');
  });
  let stop: (signal: string) => void = () => {};
  const shutdown = new Promise<string>((resolve) => {
    stop = resolve;
  });
  const ctx: CliContext = {
    env,
    stdin: new PassThrough(),
    stdout,
    stderr,
    interactive: false,
    setExitCode: () => {},
    shutdown,
  };
  return { ctx, output, stop };
}

const BASE = ['sim', '--port', '0', '--log-level', 'silent', '--company-count', '20'];

describe('hooksync sim', () => {
  it('prints NAME=value lines for scripts, serves, and stops on shutdown', async () => {
    const { ctx, output, stop } = fakeContext();
    const running = runCli([...BASE, '--api-key', 'cli-key', '--sub-key', 'sub:1/60', '--rate', '5/2'], ctx);
    await until(() => output.stdout.split('\n').length > 3, { message: 'the NAME=value lines are printed' });
    const lines = output.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    const values = Object.fromEntries(lines.map((line) => line.split(/=(.*)/s).slice(0, 2)));
    expect(values.HOOKSYNC_API_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(values.HOOKSYNC_API_KEY).toBe('cli-key');
    expect(values.HOOKSYNC_JWKS_URL).toBe(`${values.HOOKSYNC_API_BASE_URL}/.well-known/jwks.json`);
    const url = values.HOOKSYNC_API_BASE_URL as string;
    const keys = await callSim(url, 'GET', '/v1/api-keys', { key: 'cli-key' });
    expect(keys.json).toMatchObject({
      api_keys: [
        { api_key: 'cli-key', per_interval: 5, interval_seconds: 2 },
        { api_key: 'sub', per_interval: 1, interval_seconds: 60 },
      ],
    });
    expect((await callSim(url, 'GET', '/.well-known/jwks.json', { key: null })).status).toBe(200);
    stop('SIGTERM');
    expect(await running).toBe(0);
    await expect(fetch(`${url}/.well-known/jwks.json`)).rejects.toThrow();
    expect(output.stderr).toBe('');
  });

  it('generates a master key when none is given', async () => {
    const { ctx, output, stop } = fakeContext();
    const running = runCli(BASE, ctx);
    await until(() => output.stdout.split('\n').length > 3, { message: 'the NAME=value lines are printed' });
    const key = /HOOKSYNC_API_KEY=(.+)/.exec(output.stdout)?.[1];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    stop('SIGINT');
    expect(await running).toBe(0);
  });

  it.each([
    [['--drop-rate', '2'], '--drop-rate must be a number from 0 to 1'],
    [['--rate', '50'], 'PER_INTERVAL/INTERVAL_SECONDS'],
    [['--port', 'http'], '--port must be an integer'],
    [['--drop-rate', '0.7', '--tamper-rate', '0.7'], 'sum to at most 1'],
    [['--rate', '5/2', '--sub-key', 'greedy:6/2'], 'VALIDATION_SUBKEY_RATE_EXCEEDS_MASTER'],
  ])('refuses %j as a usage error', async (flags, message) => {
    const { ctx, output } = fakeContext();
    expect(await runCli([...BASE, ...flags], ctx)).toBe(2);
    expect(output.stderr).toContain(message);
    expect(output.stdout).toBe('');
  });

  it('takes the retry base from HOOKSYNC_SIM_RETRY_BASE_MS unless the flag is given', () => {
    const flags = { subKey: [] };
    expect(simulatorOptionsFromFlags(flags, { HOOKSYNC_SIM_RETRY_BASE_MS: '20' }).retryBaseMs).toBe(20);
    expect(
      simulatorOptionsFromFlags({ ...flags, retryBaseMs: '5' }, { HOOKSYNC_SIM_RETRY_BASE_MS: '20' })
        .retryBaseMs,
    ).toBe(5);
    expect(simulatorOptionsFromFlags(flags, {}).retryBaseMs).toBeUndefined();
    expect(() => simulatorOptionsFromFlags(flags, { HOOKSYNC_SIM_RETRY_BASE_MS: 'soon' })).toThrow(
      'HOOKSYNC_SIM_RETRY_BASE_MS must be an integer',
    );
  });

  it('maps every fault flag to its option', () => {
    const options = simulatorOptionsFromFlags(
      {
        subKey: ['a:1/1'],
        duplicateRate: '0.1',
        dropRate: '0.2',
        tamperRate: '0.3',
        unsignedRate: '0.4',
        errorRate: '0.5',
        delayMs: '7',
        reorder: true,
        reuseToken: true,
        unsigned: true,
        rotateEvery: '3',
        asyncMs: '100',
        balance: '12.5',
      },
      {},
    );
    expect(options).toMatchObject({
      port: 8788,
      subKeys: [{ apiKey: 'a', rate: { perInterval: 1, intervalSeconds: 1 } }],
      faults: { duplicateRate: 0.1, dropRate: 0.2, tamperRate: 0.3, unsignedRate: 0.4 },
      errorRate: 0.5,
      delayMs: 7,
      reorder: true,
      reuseToken: true,
      unsigned: true,
      rotateEvery: 3,
      asyncMs: 100,
      balanceUsd: 12.5,
    });
  });
});
