/**
 * The memory ceiling of a hooksync process (issue 29): HOOKSYNC_MEMORY_MB when set, else the limit of the
 * container it runs in (the cgroup's, v2 `memory.max` or v1 `memory.limit_in_bytes`), else none. `serve`
 * derives its memory budgets from it (server/memory-plan.ts).
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';

/** The variable that sets the ceiling, in MiB. */
export const MEMORY_CEILING_VARIABLE = 'HOOKSYNC_MEMORY_MB';
/** Smallest ceiling accepted, MiB: below it the idle footprint alone would not fit. */
export const MIN_MEMORY_CEILING_MB = 224;
/** Where the cgroup's limit is read: v2 first, then v1. */
export const CGROUP_LIMIT_FILES = Object.freeze([
  '/sys/fs/cgroup/memory.max',
  '/sys/fs/cgroup/memory/memory.limit_in_bytes',
]);
/** A v1 "limit" at or above this many bytes means no limit (the kernel writes about 2^63 rounded to a page). */
const UNLIMITED_FROM_BYTES = 2 ** 60;

/** The ceiling and where it came from. */
export interface MemoryCeiling {
  /** Bytes; undefined: no ceiling (nothing set and no container limit found). */
  readonly bytes: number | undefined;
  readonly source: 'variable' | 'cgroup' | 'none';
}

/** Reads a cgroup limit file's text: a number of bytes, or "max" (v2) or a huge number (v1) for none. */
export function parseCgroupLimit(text: string): number | undefined {
  const value = text.trim();
  if (!/^\d+$/.test(value)) return undefined;
  const bytes = Number(value);
  return bytes > 0 && bytes < UNLIMITED_FROM_BYTES ? bytes : undefined;
}

/** The container's memory limit in bytes, or undefined when there is none (or no cgroup file to read). */
export function readCgroupMemoryLimit(files: readonly string[] = CGROUP_LIMIT_FILES): number | undefined {
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    return parseCgroupLimit(text);
  }
  return undefined;
}

/**
 * The ceiling from `env` (HOOKSYNC_MEMORY_MB: a whole number of MiB, at least {@link MIN_MEMORY_CEILING_MB};
 * `0` turns the ceiling off even inside a container), else from `cgroupLimit()`.
 */
export function loadMemoryCeiling(
  env: Readonly<Record<string, string | undefined>>,
  cgroupLimit: () => number | undefined = readCgroupMemoryLimit,
): MemoryCeiling {
  const value = env[MEMORY_CEILING_VARIABLE]?.trim();
  if (value !== undefined && value !== '') {
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw new ConfigError(
        `${MEMORY_CEILING_VARIABLE} must be a whole number of MiB (got "${value.slice(0, 40)}")`,
      );
    }
    const mb = Number(value);
    if (mb === 0) return Object.freeze({ bytes: undefined, source: 'none' });
    if (mb < MIN_MEMORY_CEILING_MB) {
      throw new ConfigError(
        `${MEMORY_CEILING_VARIABLE} must be at least ${MIN_MEMORY_CEILING_MB} (MiB; got "${value}"), or 0 for no ceiling`,
      );
    }
    return Object.freeze({ bytes: mb * 1024 * 1024, source: 'variable' });
  }
  const bytes = cgroupLimit();
  return Object.freeze(
    bytes === undefined ? { bytes: undefined, source: 'none' } : { bytes, source: 'cgroup' },
  );
}
