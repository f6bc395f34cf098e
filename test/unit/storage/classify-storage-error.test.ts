import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import {
  classifyStorageError,
  isTransientStorageFailure,
} from '../../../src/storage/classify-storage-error.js';

function withCode(code: string, message = 'boom'): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyStorageError', () => {
  it.each([
    ['SQLITE_BUSY', true],
    ['SQLITE_BUSY_SNAPSHOT', true],
    ['SQLITE_LOCKED', true],
    ['SQLITE_FULL', true],
    ['SQLITE_IOERR_FSYNC', true],
    ['SQLITE_CONSTRAINT_PRIMARYKEY', false],
    ['SQLITE_ERROR', false],
    ['SQLITE_CORRUPT', false],
    ['40001', true],
    ['40P01', true],
    ['57P01', true],
    ['53300', true],
    ['08006', true],
    ['55P03', true],
    ['23505', false],
    ['42P01', false],
    ['22P02', false],
    ['P0001', false],
    ['ECONNREFUSED', true],
    ['ECONNRESET', true],
  ])('%s → transient %s', (code, transient) => {
    const error = classifyStorageError(withCode(code));
    expect(error).toBeInstanceOf(StorageError);
    expect(error.transient).toBe(transient);
    expect(error.code).toBe(transient ? 'STORAGE_UNAVAILABLE' : 'STORAGE_FAILED');
    expect(error.message).toContain(code);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('recognises node-postgres connection failures that carry no code', () => {
    expect(isTransientStorageFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientStorageFailure(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isTransientStorageFailure(new Error('column "x" does not exist'))).toBe(false);
    expect(isTransientStorageFailure('a string')).toBe(false);
  });

  it('returns a StorageError as it is', () => {
    const original = new StorageError('x', { transient: true });
    expect(classifyStorageError(original)).toBe(original);
  });

  it('keeps long messages short', () => {
    expect(classifyStorageError(new Error('y'.repeat(5000))).message.length).toBeLessThan(400);
  });
});
