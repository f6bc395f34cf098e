/**
 * The SOQL the stand-in answers (SOQL and SOSL Reference): `SELECT fields FROM Object [WHERE …] [ORDER BY f
 * [ASC|DESC]] [LIMIT n]`, with `=`, `!=`, `<`, `<=`, `>`, `>=`, `IN`, `NOT IN`, `LIKE`, `AND`, `OR`, `NOT`,
 * parentheses, string, number, boolean and null literals, and one-level parent paths (`Account.Name`). Text
 * compares case-insensitively, as SOQL does on text fields.
 */
import type { SObjectName } from './schema.js';
import { SOBJECT_NAMES } from './schema.js';
import type { Value } from './store.js';

/** A condition tree. */
export type Condition =
  | { kind: 'and' | 'or'; left: Condition; right: Condition }
  | { kind: 'not'; inner: Condition }
  | { kind: 'compare'; path: string; op: string; values: Value[] };

/** A parsed query. */
export interface Query {
  fields: string[];
  object: string;
  where: Condition | undefined;
  orderBy: { path: string; descending: boolean } | undefined;
  limit: number | undefined;
}

/** A query the stand-in cannot read: Salesforce answers 400 MALFORMED_QUERY. */
export class SoqlError extends Error {}

type Token = { type: 'word' | 'string' | 'number' | 'op' | 'punct'; text: string };

function tokenize(soql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < soql.length) {
    const char = soql.charAt(i);
    if (/\s/.test(char)) {
      i += 1;
    } else if (char === "'") {
      let text = '';
      i += 1;
      for (;;) {
        if (i >= soql.length) throw new SoqlError('unterminated string literal');
        const c = soql.charAt(i);
        if (c === '\\') {
          const next = soql.charAt(i + 1);
          text += next === 'n' ? '\n' : next === 't' ? '\t' : next;
          i += 2;
        } else if (c === "'") {
          i += 1;
          break;
        } else {
          text += c;
          i += 1;
        }
      }
      tokens.push({ type: 'string', text });
    } else if (/[<>!=]/.test(char)) {
      const two = soql.slice(i, i + 2);
      const op = ['<=', '>=', '!=', '<>'].includes(two) ? two : char;
      tokens.push({ type: 'op', text: op === '<>' ? '!=' : op });
      i += op.length;
    } else if (/[(),]/.test(char)) {
      tokens.push({ type: 'punct', text: char });
      i += 1;
    } else if (/[-\d]/.test(char)) {
      const match = /^-?\d+(?:\.\d+)?/.exec(soql.slice(i));
      if (!match) throw new SoqlError(`unexpected token: '${char}'`);
      tokens.push({ type: 'number', text: match[0] });
      i += match[0].length;
    } else {
      const match = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(soql.slice(i));
      if (!match) throw new SoqlError(`unexpected token: '${char}'`);
      tokens.push({ type: 'word', text: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}

/** Parses one query; throws SoqlError. */
export function parseSoql(soql: string): Query {
  const tokens = tokenize(soql);
  let at = 0;
  const peek = () => tokens[at];
  const keyword = (word: string) => peek()?.type === 'word' && peek()!.text.toUpperCase() === word;
  const expect = (word: string) => {
    if (!keyword(word)) throw new SoqlError(`expecting '${word}', found '${peek()?.text ?? 'EOF'}'`);
    at += 1;
  };
  const name = () => {
    const token = tokens[at];
    if (token?.type !== 'word') throw new SoqlError(`unexpected token: '${token?.text ?? 'EOF'}'`);
    at += 1;
    return token.text;
  };
  const literal = (): Value => {
    const token = tokens[at];
    at += 1;
    if (token?.type === 'string') return token.text;
    if (token?.type === 'number') return Number(token.text);
    if (token?.type === 'word' && /^(null|true|false)$/i.test(token.text))
      return token.text.toLowerCase() === 'null' ? null : token.text.toLowerCase() === 'true';
    throw new SoqlError(`unexpected token: '${token?.text ?? 'EOF'}'`);
  };
  const term = (): Condition => {
    if (keyword('NOT')) {
      at += 1;
      return { kind: 'not', inner: term() };
    }
    if (peek()?.text === '(' && peek()?.type === 'punct') {
      at += 1;
      const inner = or();
      if (tokens[at]?.text !== ')') throw new SoqlError("expecting ')'");
      at += 1;
      return inner;
    }
    const path = name();
    let op: string;
    if (keyword('NOT')) {
      at += 1;
      expect('IN');
      op = 'NOT IN';
    } else if (keyword('IN') || keyword('LIKE')) {
      op = peek()!.text.toUpperCase();
      at += 1;
    } else if (peek()?.type === 'op') {
      op = peek()!.text;
      at += 1;
    } else {
      throw new SoqlError(`unexpected token: '${peek()?.text ?? 'EOF'}'`);
    }
    if (op === 'IN' || op === 'NOT IN') {
      if (tokens[at]?.text !== '(') throw new SoqlError("expecting '('");
      at += 1;
      const values: Value[] = [literal()];
      while (tokens[at]?.text === ',') {
        at += 1;
        values.push(literal());
      }
      if (tokens[at]?.text !== ')') throw new SoqlError("expecting ')'");
      at += 1;
      return { kind: 'compare', path, op, values };
    }
    return { kind: 'compare', path, op, values: [literal()] };
  };
  const and = (): Condition => {
    let left = term();
    while (keyword('AND')) {
      at += 1;
      left = { kind: 'and', left, right: term() };
    }
    return left;
  };
  const or = (): Condition => {
    let left = and();
    while (keyword('OR')) {
      at += 1;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };
  expect('SELECT');
  const fields = [name()];
  while (tokens[at]?.text === ',') {
    at += 1;
    fields.push(name());
  }
  expect('FROM');
  const object = name();
  let where: Condition | undefined;
  if (keyword('WHERE')) {
    at += 1;
    where = or();
  }
  let orderBy: Query['orderBy'];
  if (keyword('ORDER')) {
    at += 1;
    expect('BY');
    const path = name();
    const descending = keyword('DESC');
    if (descending || keyword('ASC')) at += 1;
    orderBy = { path, descending };
  }
  let limit: number | undefined;
  if (keyword('LIMIT')) {
    at += 1;
    const value = literal();
    if (typeof value !== 'number') throw new SoqlError('LIMIT must be a number');
    limit = value;
  }
  if (at < tokens.length) throw new SoqlError(`unexpected token: '${tokens[at]!.text}'`);
  return { fields, object, where, orderBy, limit };
}

/** Whether `name` is an object the stand-in holds. */
export function isSObject(name: string): name is SObjectName {
  return (SOBJECT_NAMES as readonly string[]).includes(name);
}

function compare(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).toLowerCase().localeCompare(String(b).toLowerCase());
}

function like(value: string, pattern: string): boolean {
  const source = pattern
    .toLowerCase()
    .split('')
    .map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's').test(value.toLowerCase());
}

/** Whether a record (read through `get`) meets `condition`. */
export function matches(condition: Condition, get: (path: string) => Value): boolean {
  if (condition.kind === 'not') return !matches(condition.inner, get);
  if (condition.kind !== 'compare') {
    const left = matches(condition.left, get);
    return condition.kind === 'and'
      ? left && matches(condition.right, get)
      : left || matches(condition.right, get);
  }
  const value = get(condition.path);
  const [first] = condition.values;
  const equal = (other: Value) =>
    value === null || other === null ? value === other : compare(value, other) === 0;
  switch (condition.op) {
    case '=':
      return equal(first ?? null);
    case '!=':
      return !equal(first ?? null);
    case 'IN':
      return condition.values.some(equal);
    case 'NOT IN':
      return !condition.values.some(equal);
    case 'LIKE':
      return value !== null && typeof first === 'string' && like(String(value), first);
    default: {
      if (value === null || first === null || first === undefined) return false;
      const order = compare(value, first);
      return condition.op === '<'
        ? order < 0
        : condition.op === '<='
          ? order <= 0
          : condition.op === '>'
            ? order > 0
            : order >= 0;
    }
  }
}

/** Every path a query names (fields, conditions, order), to check against the schema. */
export function pathsOf(query: Query): string[] {
  const paths = [...query.fields];
  const walk = (condition: Condition | undefined): void => {
    if (condition === undefined) return;
    if (condition.kind === 'compare') paths.push(condition.path);
    else if (condition.kind === 'not') walk(condition.inner);
    else {
      walk(condition.left);
      walk(condition.right);
    }
  };
  walk(query.where);
  if (query.orderBy) paths.push(query.orderBy.path);
  return paths;
}
