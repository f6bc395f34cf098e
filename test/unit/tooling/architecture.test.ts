/**
 * The layering of `src/` (docs/architecture.md, "Layers"), read off the imports: a part imports only the parts
 * below it, the folder graph has no cycle, and no two files need each other at run time. Type-only imports
 * count for the layers and the folder graph (a type is a dependency too), not for the run-time cycles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../../src', import.meta.url));

const ROW_1 = ['errors.ts', 'contract/'];
const ROW_2 = ['config/', 'client/', 'webhooks/', 'storage/'];
const FEATURES = ['export/', 'receiver/', 'reconcile/', 'launch/'];
const BELOW_SERVER = [...ROW_1, ...ROW_2, ...FEATURES, 'simulator/', 'destinations/', 'watches/'];
const BELOW_APPS = [...BELOW_SERVER, 'server/'];

/** What each part may import besides itself: the layer table of docs/architecture.md. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  'errors.ts': [],
  'contract/': ['errors.ts'],
  ...Object.fromEntries(ROW_2.map((part) => [part, ROW_1])),
  ...Object.fromEntries(FEATURES.map((part) => [part, [...ROW_1, ...ROW_2]])),
  // The simulator shares the contract with hooksync, nothing else: it stands in for the service.
  'simulator/': ROW_1,
  // The one edge between features: a file drop is an export written into a directory.
  'destinations/': [...ROW_1, ...ROW_2, 'export/'],
  // A watch is a launch that runs itself: it builds, checks and sends its rows with launch's own code;
  // a CRM source reads its rows through a destination of the destinations file (never the reverse).
  'watches/': [...ROW_1, ...ROW_2, 'launch/', 'destinations/'],
  'server/': BELOW_SERVER,
  'cli/': [...BELOW_APPS, 'demo/'],
  'demo/': BELOW_APPS,
  'index.ts': BELOW_APPS,
  'simulator.ts': BELOW_APPS,
};

/** Edges the table forbids that another part of issue 14 removes; each fails the test once it is gone. */
const PENDING: Readonly<Record<string, string>> = {};

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

// Static imports and re-exports (`import type` / `export type` are type-only; `import { type A }` is not:
// under verbatimModuleSyntax it still loads the module), and dynamic imports of a literal path.
const STATIC = /^(?:import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?['"](\.[^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function readImports(): Import[] {
  const imports: Import[] = [];
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((name) =>
    name.endsWith('.ts'),
  );
  for (const file of files.map((name) => join(SRC, name))) {
    const text = readFileSync(file, 'utf8');
    const add = (specifier: string, typeOnly: boolean): void => {
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      imports.push({ from: relative(SRC, file), to: relative(SRC, target), typeOnly });
    };
    for (const match of text.matchAll(STATIC)) add(match[2] ?? '', match[1] !== undefined);
    for (const match of text.matchAll(DYNAMIC)) add(match[1] ?? '', false);
  }
  return imports;
}

/** `storage/ledger/update-ledger.ts` → `storage/`; a file at the top → its own name. */
function partOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash + 1);
}

/** The strongly connected components with more than one node (Tarjan), each sorted: the cycles. */
function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member !== undefined) component.push(member);
    } while (member !== node);
    if (component.length > 1 || edges.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

function graph(pairs: Iterable<readonly [string, string]>): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const [from, to] of pairs) {
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)?.add(to);
  }
  return edges;
}

const imports = readImports();
const crossing = imports.filter((edge) => partOf(edge.from) !== partOf(edge.to));

describe('architecture', () => {
  it('reads the imports of every source file', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(imports.some((edge) => edge.typeOnly)).toBe(true);
    expect(imports.every((edge) => edge.to.endsWith('.ts') && !edge.to.startsWith('..'))).toBe(true);
  });

  it('finds the cycles of a graph, self-loops included', () => {
    const edges = graph([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
      ['c', 'd'],
      ['e', 'e'],
    ]);
    expect(cycles(edges)).toEqual([['a', 'b', 'c'], ['e']]);
  });

  it('puts every file in a part of the layer table', () => {
    const parts = new Set(imports.flatMap((edge) => [partOf(edge.from), partOf(edge.to)]));
    expect([...parts].filter((part) => MAY_IMPORT[part] === undefined)).toEqual([]);
  });

  it('has no import from a part to one it may not use', () => {
    const forbidden = new Map<string, string[]>();
    for (const edge of crossing) {
      const key = `${partOf(edge.from)} -> ${partOf(edge.to)}`;
      if (MAY_IMPORT[partOf(edge.from)]?.includes(partOf(edge.to))) continue;
      forbidden.set(key, [...(forbidden.get(key) ?? []), `${edge.from} imports ${edge.to}`]);
    }
    const unexpected = [...forbidden].filter(([key]) => PENDING[key] === undefined);
    expect(unexpected.flatMap(([, lines]) => lines)).toEqual([]);
    const gone = Object.keys(PENDING).filter((key) => !forbidden.has(key));
    expect(gone, 'these edges are gone: delete them from PENDING').toEqual([]);
  });

  it('has no cycle between parts', () => {
    const pending = (from: string, to: string) => PENDING[`${from} -> ${to}`] !== undefined;
    const parts = graph(
      crossing
        .map((edge) => [partOf(edge.from), partOf(edge.to)] as const)
        .filter(([from, to]) => !pending(from, to)),
    );
    expect(cycles(parts)).toEqual([]);
  });

  it('has no run-time import cycle between files', () => {
    const files = graph(
      imports.filter((edge) => !edge.typeOnly).map((edge) => [edge.from, edge.to] as const),
    );
    expect(cycles(files)).toEqual([]);
  });
});
