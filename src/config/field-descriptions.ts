/**
 * The descriptions a config file's JSON Schema carries, read from the docs' field tables (issue 40): one
 * source for the reader of docs/ and for an editor's hover. A table row `` | `a`, `b.c` | default | meaning | ``
 * describes fields `a` and `b.c` of the current scope; a scope starts at a line `` `webhook`: `` or a heading
 * naming a scope ("The " aside), and "Every …:" starts the scope `*` (fields every entry has); another `##`
 * section ends it.
 */
import { readFileSync } from 'node:fs';

/** Descriptions by scope, then by field path (`retry.schedule`). */
export type FieldDescriptions = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** Values a table's second column holds when it says whether a field is needed, not its default. */
const NOT_A_DEFAULT = new Set(['required', 'yes', 'no', 'none', '']);

/** Reads the field tables of `markdown`; `scopes` are the names a scope line or heading may carry. */
export function parseFieldDescriptions(markdown: string, scopes: readonly string[]): FieldDescriptions {
  const known = new Set(scopes);
  const found = new Map<string, Map<string, string>>();
  let scope: string | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^(#{2,3})\s+(.+)$/.exec(line);
    if (heading !== null) {
      const name = heading[2]!.trim().toLowerCase().replace(/^the /, '');
      // A section of its own ends the scope; a subsection stays in its section's.
      scope = known.has(name) ? name : heading[1] === '##' ? undefined : scope;
      continue;
    }
    const opener = /^`([a-z_]+)`:\s*$/.exec(line.trim());
    if (opener !== null && known.has(opener[1]!)) {
      scope = opener[1];
      continue;
    }
    if (/^Every [a-z ]+:\s*$/.test(line.trim())) {
      scope = '*';
      continue;
    }
    if (scope === undefined || !line.startsWith('| `')) continue;
    const cells = splitRow(line);
    if (cells.length < 3) continue;
    const [fields, second, meaning] = cells as [string, string, string];
    const byField = found.get(scope) ?? new Map<string, string>();
    found.set(scope, byField);
    const fallback = plain(second);
    const text = NOT_A_DEFAULT.has(fallback.toLowerCase())
      ? plain(meaning)
      : `${plain(meaning)} (default: ${fallback})`;
    for (const match of fields.matchAll(/`([A-Za-z0-9_.$]+)`/g)) byField.set(match[1]!, text);
  }
  return found;
}

/** Reads the tables of the doc `name` (docs/<name>), or none when the docs are not installed beside the code. */
export function readFieldDescriptions(name: string, scopes: readonly string[]): FieldDescriptions {
  let markdown: string;
  try {
    markdown = readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');
  } catch {
    return new Map();
  }
  return parseFieldDescriptions(markdown, scopes);
}

/** A row's cells, split on `|` outside backticks (a cell may show `a | b`). */
function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let code = false;
  for (const char of line.trim().slice(1, -1)) {
    if (char === '`') code = !code;
    if (char === '|' && !code) {
      cells.push(cell.trim());
      cell = '';
    } else cell += char;
  }
  cells.push(cell.trim());
  return cells;
}

/** Markdown as plain text: links become their text, emphasis and code marks go. */
function plain(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/`/g, '')
    .trim();
}
