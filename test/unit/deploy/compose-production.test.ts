/**
 * The container fails closed: docker-compose.yml alone is the local trial and cannot start without the sim
 * profile; docker-compose.production.yml on top requires the service's base URL, the API key and the
 * database password, allows plain http to no host, and no longer needs the simulator. Read from the YAML
 * text (no Docker engine runs in tests), with compose's interpolation rules applied here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { readYamlSubset, type YamlValue } from './read-yaml-subset.js';

const ROOT = new URL('../../../', import.meta.url);
type Map = { [key: string]: YamlValue };
const asMap = (value: YamlValue | undefined): Map =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
const read = (name: string) => asMap(readYamlSubset(readFileSync(new URL(name, ROOT), 'utf8')));

const trial = read('docker-compose.yml');
const production = read('docker-compose.production.yml');
const service = (file: Map, name: string) => asMap(asMap(file.services)[name]);
const environment = (file: Map, name: string) => asMap(service(file, name).environment);

/** Compose's interpolation of one value: `${V}`, `${V:-default}`, `${V:?message}`; required ones unset are listed. */
function interpolate(value: string, env: Record<string, string>): { value: string; missing: string[] } {
  const missing: string[] = [];
  const text = value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (_m, name: string, colon?: string, op?: string, rest?: string) => {
      const given = env[name];
      const set = colon === ':' ? given !== undefined && given !== '' : given !== undefined;
      if (set) return given ?? '';
      if (op === '?') missing.push(name);
      return op === '-' ? (rest ?? '') : '';
    },
  );
  return { value: text, missing };
}

/** The receiver's environment and the required variables left unset, for the files merged in order. */
function merged(files: readonly Map[], env: Record<string, string>) {
  const missing = new Set<string>();
  const resolved: Record<string, Record<string, string>> = {};
  for (const file of files) {
    for (const name of Object.keys(asMap(file.services))) {
      for (const [key, raw] of Object.entries(environment(file, name))) {
        const result = interpolate(String(raw ?? ''), env);
        for (const variable of result.missing) missing.add(variable);
        resolved[name] = { ...resolved[name], [key]: result.value };
      }
      const command = service(file, name).command;
      for (const arg of Array.isArray(command) ? command : [])
        for (const variable of interpolate(String(arg), env).missing) missing.add(variable);
    }
  }
  return { env: resolved, missing: [...missing].sort() };
}

/** Services hooksync depends on, and whether each is required. */
function dependencies(files: readonly Map[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const file of files) {
    for (const [name, spec] of Object.entries(asMap(service(file, 'hooksync').depends_on))) {
      out[name] = asMap(spec).required !== false;
    }
  }
  return out;
}

describe('the trial (docker-compose.yml alone)', () => {
  it('cannot start without the sim profile: the receiver requires the simulator, which only that profile runs', () => {
    expect(dependencies([trial])).toEqual({ postgres: true, sim: true });
    expect(service(trial, 'sim').profiles).toEqual(['sim']);
  });

  it('starts with the key alone, as the documented trial and the container check run it', () => {
    const { env, missing } = merged([trial], { HOOKSYNC_API_KEY: 'trial-key' });
    expect(missing).toEqual([]);
    const config = loadConfig(env.hooksync ?? {});
    expect(config.apiBaseUrl).toBe('http://sim:8788');
    expect(config.allowInsecureHttp).toEqual(['sim']);
  });
});

describe('production (docker-compose.yml + docker-compose.production.yml)', () => {
  const files = [trial, production];
  const given = {
    HOOKSYNC_API_BASE_URL: 'https://api.example.com',
    HOOKSYNC_API_KEY: 'k',
    POSTGRES_PASSWORD: 'pw',
  };

  it('requires the base URL, the API key and the database password', () => {
    expect(merged(files, {}).missing).toEqual([
      'HOOKSYNC_API_BASE_URL',
      'HOOKSYNC_API_KEY',
      'POSTGRES_PASSWORD',
    ]);
    for (const name of Object.keys(given)) {
      const without = Object.fromEntries(Object.entries(given).filter(([k]) => k !== name));
      expect(merged(files, without).missing).toEqual([name]);
      // An empty value is as good as none (":?").
      expect(merged(files, { ...without, [name]: '' }).missing).toEqual([name]);
    }
  });

  it('uses the password for both Postgres and the receiver, and keeps nothing of the trial', () => {
    const { env } = merged(files, given);
    expect(env.postgres?.POSTGRES_PASSWORD).toBe('pw');
    const config = loadConfig(env.hooksync ?? {});
    expect(new URL(config.databaseUrl).password).toBe('pw');
    expect(config.apiBaseUrl).toBe('https://api.example.com');
    expect(config.allowInsecureHttp).toBe(false);
  });

  it('refuses the simulator (or any) plain-http address: no host is allowed plain http', () => {
    const { env } = merged(files, { ...given, HOOKSYNC_API_BASE_URL: 'http://sim:8788' });
    expect(() => loadConfig(env.hooksync ?? {})).toThrow(/HOOKSYNC_API_BASE_URL must be https:\/\//);
  });

  it('does not need the simulator to start', () => {
    expect(dependencies(files)).toEqual({ postgres: true, sim: false });
  });

  it('publishes the receiver on loopback only', () => {
    const ports = service(trial, 'hooksync').ports as string[];
    expect(ports.every((p) => p.startsWith('127.0.0.1:'))).toBe(true);
    expect(service(production, 'hooksync').ports).toBeUndefined();
  });
});

describe('Dockerfile', () => {
  it('shows the port published on loopback, behind the proxy', () => {
    const text = readFileSync(new URL('Dockerfile', ROOT), 'utf8');
    expect(text).toMatch(/docker run -p 127\.0\.0\.1:8787:8787 /);
    expect(text).not.toMatch(/docker run -p 8787:8787/);
  });
});
