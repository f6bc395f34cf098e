/**
 * Reads the small YAML subset docker-compose.yml is written in (no YAML dependency): nested maps by
 * indentation, `- item` lists of scalars, JSON-style `[..]` lists, plain / "double" / 'single' quoted
 * scalars, comments. Anything else (anchors, block scalars, flow maps, several documents, tabs) throws,
 * so an edit outside the subset fails the test loudly instead of being misread.
 */

/** A value of the subset. */
export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  readonly number: number;
  readonly indent: number;
  readonly text: string;
}

function fail(line: Line | undefined, message: string): never {
  throw new SyntaxError(`line ${line?.number ?? 'end'}: ${message}`);
}

function plainScalar(text: string): YamlValue {
  if (/^-?\d+$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === '' || text === 'null' || text === '~') return null;
  if (/^[&*!|>{@`%]/.test(text)) throw new SyntaxError(`"${text}" is outside the supported YAML subset`);
  return text;
}

/** One scalar or flow list, with any trailing comment removed. */
function scalar(raw: string, line: Line): YamlValue {
  const text = raw.trim();
  if (text.startsWith('"')) {
    const end = /^"(?:[^"\\]|\\.)*"/.exec(text)?.[0] ?? fail(line, 'unterminated double-quoted string');
    if (!/^(\s+#.*)?$/.test(text.slice(end.length))) fail(line, 'text after a quoted string');
    return JSON.parse(end) as string;
  }
  if (text.startsWith("'")) {
    const end = /^'(?:[^']|'')*'/.exec(text)?.[0] ?? fail(line, 'unterminated single-quoted string');
    if (!/^(\s+#.*)?$/.test(text.slice(end.length))) fail(line, 'text after a quoted string');
    return end.slice(1, -1).replace(/''/g, "'");
  }
  if (text.startsWith('[')) {
    const withoutComment = text.replace(/\]\s+#.*$/, ']');
    try {
      const list: unknown = JSON.parse(withoutComment);
      if (!Array.isArray(list) || !list.every((v) => typeof v === 'string' || typeof v === 'number'))
        throw new Error();
      return list as YamlValue[];
    } catch {
      fail(line, 'flow lists must be JSON arrays of strings and numbers');
    }
  }
  return plainScalar(text.replace(/\s+#.*$/, '').trim());
}

/** Parses `text`; throws SyntaxError (with the line number) outside the subset. */
export function readYamlSubset(text: string): YamlValue {
  const lines: Line[] = [];
  text.split(/\r?\n/).forEach((content, i) => {
    if (/^\s*(#.*)?$/.test(content)) return;
    const indentText = /^[ \t]*/.exec(content)?.[0] ?? '';
    const line = {
      number: i + 1,
      indent: indentText.length,
      text: content.slice(indentText.length).trimEnd(),
    };
    if (indentText.includes('\t')) fail(line, 'tabs in indentation');
    if (line.text === '---' || line.text === '...') fail(line, 'several documents');
    lines.push(line);
  });
  let at = 0;

  function block(indent: number): YamlValue {
    const first = lines[at];
    if (first === undefined) return null;
    return first.text === '-' || first.text.startsWith('- ') ? sequence(indent) : mapping(indent);
  }

  function sequence(indent: number): YamlValue[] {
    const items: YamlValue[] = [];
    for (let line = lines[at]; line !== undefined && line.indent === indent; line = lines[at]) {
      if (!line.text.startsWith('- ')) fail(line, 'a list item was expected');
      const rest = line.text.slice(2);
      if (/^[A-Za-z0-9_.-]+:(\s|$)/.test(rest)) fail(line, 'maps inside lists are outside the subset');
      items.push(scalar(rest, line));
      at++;
    }
    return items;
  }

  function mapping(indent: number): { [key: string]: YamlValue } {
    const map: { [key: string]: YamlValue } = {};
    for (let line = lines[at]; line !== undefined && line.indent === indent; line = lines[at]) {
      const match =
        /^([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(line.text) ?? fail(line, 'a "key: value" line was expected');
      const key = match[1] ?? '';
      if (Object.hasOwn(map, key)) fail(line, `duplicate key ${key}`);
      at++;
      const next = lines[at];
      if (match[2] !== undefined && match[2] !== '' && !match[2].startsWith('#')) {
        map[key] = scalar(match[2], line);
      } else if (next !== undefined && next.indent > indent) {
        map[key] = block(next.indent);
      } else if (next !== undefined && next.indent === indent && next.text.startsWith('- ')) {
        map[key] = sequence(indent);
      } else {
        map[key] = null;
      }
    }
    return map;
  }

  const value = block(lines[0]?.indent ?? 0);
  if (at < lines.length) fail(lines[at], 'unexpected indentation');
  return value;
}
