/**
 * Waits for a condition, not a duration: `until(condition, { message })` polls `condition` (through
 * vitest's `vi.waitFor`) until it returns a truthy value, which it resolves with; a check that throws (an
 * `expect`, say) counts as not yet. Past `timeout` it fails naming what was awaited, with the last check's
 * error as the cause: a wait never gives up silently.
 *
 * The default timeout is generous (30 s) because CI runs on a loaded 2-core machine: a condition that
 * holds eventually costs only the time it takes, one that never holds still fails.
 *
 * Fake timers: `vi.waitFor` advances the fake clock by its interval on every check. `until` never moves a
 * fake clock: under fake timers it asks `vi.waitFor` for interval 0 (an advance by nothing) and spaces its
 * checks with the real timer instead, so a test's faked Date moves only when the test moves it.
 */
import { setTimeout as realSleep } from 'node:timers/promises';
import { vi } from 'vitest';

export interface UntilOptions {
  /** What is awaited, as the error says it: "timed out waiting until <message>". */
  readonly message: string;
  /** Longest wait in ms (default 30 000). */
  readonly timeout?: number;
  /** Time between checks in ms (default 20). */
  readonly interval?: number;
}

export const UNTIL_DEFAULT_TIMEOUT_MS = 30_000;

/** A check that found the condition false (not an error of its own). */
const NOT_YET = new Error('the condition was false');

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

export async function until<T>(
  condition: () => T | Promise<T>,
  options: UntilOptions,
): Promise<Truthy<Awaited<T>>> {
  const timeout = options.timeout ?? UNTIL_DEFAULT_TIMEOUT_MS;
  const interval = options.interval ?? 20;
  const fake = vi.isFakeTimers();
  let checks = 0;
  const check = async (): Promise<Truthy<Awaited<T>>> => {
    // Under fake timers vi.waitFor re-checks at once (interval 0): the real wait between checks is here.
    if (fake && checks > 0) await realSleep(interval);
    checks += 1;
    const value = await condition();
    if (!value) throw NOT_YET;
    return value as Truthy<Awaited<T>>;
  };
  try {
    return await vi.waitFor(check, { timeout, interval: fake ? 0 : interval });
  } catch (error) {
    const last =
      error === NOT_YET ? '' : `; the last check threw: ${(error as Error)?.message ?? String(error)}`;
    throw new Error(`timed out after ${timeout} ms waiting until ${options.message}${last}`, {
      cause: error,
    });
  }
}
