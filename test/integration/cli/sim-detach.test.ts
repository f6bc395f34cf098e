/**
 * `hooksync sim --detach` in a real shell: `eval "$(hooksync sim --detach …)"` returns once the simulator
 * listens, with its variables exported, and `kill "$HOOKSYNC_SIM_PID"` stops it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { BUILT_CLI } from '../../helpers/ensure-built.js';

const run = promisify(execFile);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('hooksync sim --detach', () => {
  it('lets a script eval its variables and go on, the simulator serving in the background', async () => {
    const script = [
      `eval "$("${process.execPath}" "${BUILT_CLI}" sim --detach --port 0 --api-key "it's a key")"`,
      'node -e "fetch(process.env.HOOKSYNC_JWKS_URL).then((r) => console.log(r.status))"',
      'echo "$HOOKSYNC_API_KEY|$HOOKSYNC_API_BASE_URL|$HOOKSYNC_SIM_PID"',
    ].join('\n');
    const { stdout } = await run('bash', ['-c', script], {
      timeout: 30_000,
      env: { PATH: `${process.execPath.replace(/\/node$/, '')}:${process.env.PATH ?? ''}` },
    });
    const [status, vars] = stdout.trim().split('\n');
    expect(status).toBe('200');
    const [key, url, pid] = (vars ?? '').split('|');
    expect(key).toBe("it's a key");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(alive(Number(pid))).toBe(true);
    // Still serving after the script ended; SIGTERM stops it.
    expect((await fetch(`${url}/.well-known/jwks.json`)).status).toBe(200);
    process.kill(Number(pid), 'SIGTERM');
    await expect
      .poll(
        () =>
          fetch(`${url}/.well-known/jwks.json`).then(
            () => 'up',
            () => 'down',
          ),
        { timeout: 10_000 },
      )
      .toBe('down');
  });

  it('refuses bad flags in the foreground, and reports a start that fails in one line', async () => {
    const bad = await runCliCaptured(['sim', '--detach', '--drop-rate', '7']);
    expect(bad).toEqual({
      code: 2,
      stdout: '',
      stderr: 'hooksync: --drop-rate must be a number from 0 to 1, got "7"\n',
    });
    const failed = await run(
      process.execPath,
      [BUILT_CLI, 'sim', '--detach', '--port', '0', '--sub-key', 'k:1/1'],
      {
        timeout: 30_000,
      },
    ).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failed).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^hooksync: VALIDATION_SUBKEY_RATE_EXCEEDS_MASTER: .*\n$/),
    });
  });
});
