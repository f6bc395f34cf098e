/**
 * The checkers the deployment test relies on can fail: the YAML-subset reader refuses what it does not
 * understand, the Dockerfile reader joins continued lines, and the command checker catches wrong commands.
 */
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../../src/cli/create-program.js';
import { commandProblems } from './command-problems.js';
import { readDockerfile, readEnvPairs } from './read-dockerfile.js';
import { readYamlSubset } from './read-yaml-subset.js';

/** A compose interpolation, written without a `${` literal that reads like a template-string slip. */
const VAR = (name: string) => `\${${name}}`;

const program = createProgram({
  env: {},
  stdin: Readable.from(['']),
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  interactive: false,
  setExitCode: () => {},
  shutdown: new Promise<string>(() => {}),
});

describe('readYamlSubset', () => {
  it('reads nested maps, both list forms, quoted and plain scalars, and comments', () => {
    const text = [
      '# top comment',
      'a:',
      '  b: 1 # trailing',
      '  c: "x # not a comment"',
      "  d: 'it''s'",
      '  e: ["p", "q r"]',
      '  f:',
      '    - one',
      '    - "two: 2"',
      '  g:',
      `  h: ${VAR('VAR:-default')}`,
      'list:',
      '- top',
    ].join('\n');
    expect(readYamlSubset(text)).toEqual({
      a: {
        b: 1,
        c: 'x # not a comment',
        d: "it's",
        e: ['p', 'q r'],
        f: ['one', 'two: 2'],
        g: null,
        h: VAR('VAR:-default'),
      },
      list: ['top'],
    });
  });

  it.each([
    ['an anchor', 'a: &x 1'],
    ['an alias', 'a: *x'],
    ['a block scalar', 'a: |\n  text'],
    ['a flow map', 'a: {b: 1}'],
    ['a map inside a list', 'a:\n  - b: 1'],
    ['tabs', 'a:\n\tb: 1'],
    ['two documents', 'a: 1\n---\nb: 2'],
    ['a duplicate key', 'a: 1\na: 2'],
    ['a stray indentation', 'a: 1\n    b: 2'],
    ['single-quoted flow list items', "a: ['x']"],
  ])('refuses %s', (_what, text) => {
    expect(() => readYamlSubset(text)).toThrow(SyntaxError);
  });
});

describe('readDockerfile', () => {
  it('joins continued lines, skips comments inside them, and numbers the stages', () => {
    const instructions = readDockerfile(
      'FROM a AS b\nRUN one \\\n # note\n && two\nFROM c\nENV A=1 B="x y"\n',
    );
    expect(instructions).toEqual([
      { keyword: 'FROM', args: 'a AS b', stage: 0 },
      { keyword: 'RUN', args: 'one && two', stage: 0 },
      { keyword: 'FROM', args: 'c', stage: 1 },
      { keyword: 'ENV', args: 'A=1 B="x y"', stage: 1 },
    ]);
    expect(readEnvPairs('A=1 B="x y"')).toEqual({ A: '1', B: 'x y' });
  });
});

describe('commandProblems', () => {
  it.each([
    [['serve'], []],
    [['serve', '--port', '8787', '--log-level', 'debug'], []],
    [['serve', '--port=8787'], []],
    [['sim', '--host', '0.0.0.0', '--port', '8788', '--api-key', VAR('KEY')], []],
    [['nope'], ['no subcommand "nope"']],
    [['serve', '--no-such-flag', 'x'], ['serve has no option --no-such-flag']],
    [['sim', '--port'], ['--port needs a value']],
    [['serve', '--log-level', 'loud'], ['--log-level does not accept loud']],
    [['serve', 'extra'], ['serve takes 0 argument(s)']],
  ])('%j → %j', (argv, problems) => {
    expect(commandProblems(program, argv)).toEqual(problems);
  });
});
