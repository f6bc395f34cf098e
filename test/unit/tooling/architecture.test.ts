/**
 * The layering of `src/` (docs/architecture.md, "Layers"), read off the imports: a part imports only the parts
 * below it, the folder graph has no cycle, and no two files need each other at run time. Type-only imports
 * count for the layers, the folder graph and the size of a file circle (a type is a dependency too), not for
 * the run-time cycles nor for what serve loads at start.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../../src', import.meta.url));

const ROW_1 = ['errors.ts', 'contract/'];
const ROW_2 = ['config/', 'client/', 'webhooks/', 'storage/'];
/** Tracing (issue 40): an SDK-free seam every feature may call, loading the SDK only when it is on. */
const ROW_3 = ['telemetry/'];
const BELOW_FEATURES = [...ROW_1, ...ROW_2, ...ROW_3];
const FEATURES = ['export/', 'receiver/', 'reconcile/', 'launch/'];
const BELOW_SERVER = [...BELOW_FEATURES, ...FEATURES, 'simulator/', 'destinations/', 'watches/'];
const BELOW_APPS = [...BELOW_SERVER, 'server/'];

/** What each part may import besides itself: the layer table of docs/architecture.md. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  'errors.ts': [],
  'contract/': ['errors.ts'],
  ...Object.fromEntries(ROW_2.map((part) => [part, ROW_1])),
  'telemetry/': [...ROW_1, ...ROW_2],
  ...Object.fromEntries(FEATURES.map((part) => [part, BELOW_FEATURES])),
  // The simulator shares the contract with hooksync, nothing else: it stands in for the service.
  'simulator/': ROW_1,
  // The one edge between features: a file drop is an export written into a directory.
  'destinations/': [...BELOW_FEATURES, 'export/'],
  // A watch is a launch that runs itself: it builds, checks and sends its rows with launch's own code;
  // a CRM source reads its rows through a destination of the destinations file (never the reverse).
  'watches/': [...BELOW_FEATURES, 'launch/', 'destinations/'],
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
  dynamic: boolean;
}

/** The most files one import circle may hold, type imports included (issue 44). */
const MAX_CIRCLE_FILES = 5;
/** What the thread that runs `serve` starts from (cli/bounded-worker.ts runs the CLI), and serve's root. */
const SERVE_ENTRIES = ['cli/run-cli.ts', 'server/start-receiver.ts'];
/** The registry of destination types, which loads each type's module when a configuration names it. */
const REGISTRY = 'destinations/destination-types.ts';

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
    const add = (specifier: string, typeOnly: boolean, dynamic: boolean): void => {
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      imports.push({ from: relative(SRC, file), to: relative(SRC, target), typeOnly, dynamic });
    };
    for (const match of text.matchAll(STATIC)) add(match[2] ?? '', match[1] !== undefined, false);
    for (const match of text.matchAll(DYNAMIC)) add(match[1] ?? '', false, true);
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

/** Every file reached from `entries` through `edges`, each with the file that first reached it. */
function reach(edges: ReadonlyMap<string, ReadonlySet<string>>, entries: readonly string[]) {
  const via = new Map<string, string | undefined>(entries.map((entry) => [entry, undefined]));
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const next of edges.get(file) ?? []) {
      if (via.has(next)) continue;
      via.set(next, file);
      queue.push(next);
    }
  }
  return via;
}

/** `file` and the files that led to it from an entry, entry first. */
function pathTo(via: ReadonlyMap<string, string | undefined>, file: string): string {
  const path = [file];
  for (let at = via.get(file); at !== undefined; at = via.get(at)) path.unshift(at);
  return path.join(' -> ');
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

  it(`has no import circle of more than ${MAX_CIRCLE_FILES} files, type imports included`, () => {
    const files = graph(imports.map((edge) => [edge.from, edge.to] as const));
    const large = cycles(files).filter((circle) => circle.length > MAX_CIRCLE_FILES);
    expect(large).toEqual([]);
  });

  it("loads no destination type's module at serve's start: the registry loads each when named", () => {
    const typeModules = imports.filter((edge) => edge.from === REGISTRY && edge.dynamic).map((e) => e.to);
    expect(typeModules).toEqual(expect.arrayContaining(['destinations/webhook-destination.ts']));
    expect(typeModules.length).toBeGreaterThanOrEqual(5);
    // A type's module (`*-destination.ts`, or whatever the registry loads), or any file in a folder of
    // destinations/ (a CRM's adapter, the CRM core).
    const isDestinationModule = (file: string) =>
      typeModules.includes(file) || /^destinations\/([^/]+\/|[^/]+-destination\.ts$)/.test(file);
    const loading = graph(
      imports.filter((edge) => !edge.typeOnly && !edge.dynamic).map((edge) => [edge.from, edge.to] as const),
    );
    const via = reach(loading, SERVE_ENTRIES);
    expect(via.has('server/parts/start-dispatch.ts')).toBe(true);
    const loaded = [...via.keys()].filter(isDestinationModule).map((file) => pathTo(via, file));
    expect(loaded).toEqual([]);
  });
});
