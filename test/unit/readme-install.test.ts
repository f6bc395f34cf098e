/**
 * The README does not promise the registry before the package is published: its Install section installs
 * from a clone or a packed tarball, and names `npx hooksync` / `npm install hooksync` only as what works once
 * published. The quick start's two newcomer commands stay those a fresh clone runs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

/** The text of a `## Title` section, up to the next one. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, title).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

describe('README install', () => {
  const install = section('Install');

  it('installs from a clone and from a packed tarball today', () => {
    expect(install).toMatch(/not published to a package registry yet/);
    expect(install).toMatch(/^git clone /m);
    expect(install).toMatch(/^npm install -g \.\s/m);
    expect(install).toMatch(/^npm pack\s/m);
    expect(install).toContain(`npm install /path/to/${pkg.name}-<version>.tgz`);
  });

  it('offers the registry commands only as what works once published', () => {
    const registry = /npx hooksync|npm install (-g )?hooksync\b/g;
    const published = install.slice(install.indexOf('Once it is published'));
    const before = install.slice(0, install.indexOf('Once it is published'));
    expect(before.replace(/in the clone: npx hooksync --help/, '')).not.toMatch(registry);
    expect(published).toMatch(/`npx hooksync --help`/);
    expect(readme).not.toMatch(/`npm install hooksync express`\)/);
  });

  it('keeps the two newcomer commands a fresh clone runs', () => {
    const quick = section('Quick start');
    expect(quick).toContain('npm install && npx hooksync demo');
    expect(quick).toMatch(/^npm test\s/m);
    // npm install builds the clone (prepare), and npx hooksync runs the package's own bin.
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.bin.hooksync).toBe('dist/cli/main.js');
  });
});
