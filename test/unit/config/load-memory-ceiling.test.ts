import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import {
  loadMemoryCeiling,
  MIN_MEMORY_CEILING_MB,
  parseCgroupLimit,
  readCgroupMemoryLimit,
} from '../../../src/config/load-memory-ceiling.js';
import { ConfigError } from '../../../src/errors.js';

const MIB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'hooksync-cgroup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('the memory ceiling', () => {
  it('is HOOKSYNC_MEMORY_MB in MiB, which wins over the container limit', () => {
    expect(loadMemoryCeiling({ HOOKSYNC_MEMORY_MB: '256' }, () => 512 * MIB)).toEqual({
      bytes: 256 * MIB,
      source: 'variable',
    });
    expect(loadConfig({ HOOKSYNC_MEMORY_MB: ' 512 ' }).memoryCeiling.bytes).toBe(512 * MIB);
  });

  it('defaults to the container limit, else none; 0 turns it off', () => {
    expect(loadMemoryCeiling({}, () => 300 * MIB)).toEqual({ bytes: 300 * MIB, source: 'cgroup' });
    expect(loadMemoryCeiling({}, () => undefined)).toEqual({ bytes: undefined, source: 'none' });
    expect(loadMemoryCeiling({ HOOKSYNC_MEMORY_MB: '0' }, () => 300 * MIB)).toEqual({
      bytes: undefined,
      source: 'none',
    });
  });

  it.each(['abc', '-1', '1.5', '12MB', String(MIN_MEMORY_CEILING_MB - 1)])(
    'refuses HOOKSYNC_MEMORY_MB=%s with one line naming the variable',
    (value) => {
      expect(() => loadMemoryCeiling({ HOOKSYNC_MEMORY_MB: value }, () => undefined)).toThrow(ConfigError);
      expect(() => loadMemoryCeiling({ HOOKSYNC_MEMORY_MB: value }, () => undefined)).toThrow(
        /^HOOKSYNC_MEMORY_MB must be/,
      );
    },
  );

  it('reads cgroup v2 memory.max and v1 memory.limit_in_bytes, "max" and the v1 sentinel meaning none', () => {
    expect(parseCgroupLimit('268435456\n')).toBe(256 * MIB);
    expect(parseCgroupLimit('max\n')).toBeUndefined();
    expect(parseCgroupLimit('9223372036854771712\n')).toBeUndefined();
    expect(parseCgroupLimit('0')).toBeUndefined();
    const v2 = file('memory.max', '536870912\n');
    const v1 = file('memory.limit_in_bytes', '268435456\n');
    const missing = join(dir, 'absent');
    expect(readCgroupMemoryLimit([v2, v1])).toBe(512 * MIB);
    expect(readCgroupMemoryLimit([missing, v1])).toBe(256 * MIB);
    expect(readCgroupMemoryLimit([file('unlimited', 'max\n'), v1])).toBeUndefined();
    expect(readCgroupMemoryLimit([missing])).toBeUndefined();
  });
});
