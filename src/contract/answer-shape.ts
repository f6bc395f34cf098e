/**
 * A cheap look at the shape of a parsed answer from outside (a CRM's, a source's, the service's) before any
 * per-element work (issue 43): zod builds one issue object per bad element, so a page of a million `0`s
 * where objects belong costs hundreds of MiB to *refuse*. Here an array longer than the bound, or one that
 * mixes objects with other values, is refused at once, and the schema is first tried on a sample of every
 * array (its first elements), so that an answer wrong everywhere is refused from a few issues.
 */
import type { z } from 'zod';

/**
 * The longest array read in any answer unless the call names its own bound (a page's documented size):
 * above a CRM's longest unpaged list (a portal's property definitions, an org's fields, a picklist's
 * options) and the service's largest page.
 */
export const DEFAULT_MAX_ANSWER_ITEMS = 10_000;
/** Elements of all the arrays of one answer together, at most: a bound on nested arrays too. */
export const MAX_ANSWER_ITEMS_IN_ALL = 5 * DEFAULT_MAX_ANSWER_ITEMS;
/** Elements of each array kept in the sample the schema is tried on first. */
const SAMPLE_ITEMS = 2;

/** What is wrong with the answer's shape (`where: problem`), or undefined when it passes. */
export function answerShapeProblem(value: unknown, maxItems = DEFAULT_MAX_ANSWER_ITEMS): string | undefined {
  // Iterative: the depth of what JSON.parse built is not ours to choose. The top-level key names the place.
  const stack: Array<readonly [unknown, string]> = [[value, 'the body']];
  let items = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, where] = next;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      if (node.length > maxItems) return `${where}: ${node.length} items, more than the ${maxItems} read`;
      items += node.length;
      if (items > MAX_ANSWER_ITEMS_IN_ALL)
        return `${where}: more than ${MAX_ANSWER_ITEMS_IN_ALL} items in all the arrays of one answer`;
      const objects = node.filter((item) => item !== null && typeof item === 'object').length;
      if (objects !== 0 && objects !== node.length) return `${where}: objects mixed with other values`;
      for (const item of node) if (objects > 0) stack.push([item, where]);
      continue;
    }
    for (const [key, item] of Object.entries(node))
      if (item !== null && typeof item === 'object') stack.push([item, where === 'the body' ? key : where]);
  }
  return undefined;
}

/** `value` with every array cut to its first elements: what the schema is tried on first. */
function sampleOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, SAMPLE_ITEMS).map(sampleOf);
  const sample: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) sample[key] = sampleOf(item);
  return sample;
}

/** What lies at `path` in `value`, if anything. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** One issue of a failed parse, for a message: `path: message`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'the body: malformed';
  return `${issue.path.length === 0 ? 'the body' : issue.path.join('.')}: ${issue.message}`;
}

/** The outcome of {@link parseAnswer}: the data, or what was wrong (`where: problem`). */
export type AnswerParse<T> =
  | { readonly ok: true; readonly data: T }
  | { readonly ok: false; readonly problem: string };

/**
 * `value` read by `schema` within bounded work: the shape check first, then the schema on a sample of every
 * array (a few issues at most when the answer is wrong everywhere), then on the whole.
 */
export function parseAnswer<S extends z.ZodType>(
  schema: S,
  value: unknown,
  maxItems = DEFAULT_MAX_ANSWER_ITEMS,
): AnswerParse<z.output<S>> {
  const problem = answerShapeProblem(value, maxItems);
  if (problem !== undefined) return { ok: false, problem };
  const sampled = sampleOf(value);
  const sample = schema.safeParse(sampled);
  // A type wrong in the sample is wrong in the whole; a value the cut removed (a tuple's, a minimum's) is not.
  const issue = sample.success ? undefined : sample.error.issues[0];
  if (issue?.code === 'invalid_type' && valueAt(sampled, issue.path) !== undefined)
    return { ok: false, problem: firstIssue(sample.error as z.ZodError) };
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, problem: firstIssue(parsed.error) };
}
