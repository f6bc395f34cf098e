/**
 * What the JSON configuration files (destinations, watches) share: the file read and parsed with one clear
 * line for each way it can fail (never quoting the text, which may hold a secret), and a zod issue's path
 * written as the field it names (`retry.schedule[1]`).
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';

/** The parsed JSON document at `path`; throws ConfigError starting with `label` when it cannot be. */
export function readJsonConfigFile(path: string, label: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${label}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // JSON.parse's message quotes the text around the error, which may be a secret.
    throw new ConfigError(`${label}: is not valid JSON`);
  }
}

/** A zod issue's path as a field name: `a.b[2].c`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) =>
      typeof key === 'number' ? `${text}[${key}]` : text === '' ? String(key) : `${text}.${String(key)}`,
    '',
  );
}
