/**
 * What the CRM stand-ins (HubSpot, Salesforce) share to serve HTTP: reading a request body under a cap,
 * parsing JSON without throwing, a real-time delay, and the rules of faults a test injects.
 */
import type { IncomingMessage } from 'node:http';

/** The body as text, or undefined past `maxBytes` (read whole, kept no further). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** `{ value }` (undefined for an empty text), or `{ error }` with the parser's message. */
export function parseJson(text: string): { value: unknown } | { error: string } {
  if (text === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Waits `ms` of real time. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A fault rule: answered `times` times (default 1) for requests that match. */
export interface MatchedRule {
  times?: number;
  /** Matching requests let through (answered for real) before the rule answers one (default 0). */
  skip?: number;
  match?: { method?: string; pathIncludes?: string };
}

/** Injected fault rules, first match first, each used up after its `times`. */
export class FaultRules<R extends MatchedRule> {
  readonly #rules: Array<R & { left: number; passed: number }> = [];

  add(rule: R): void {
    this.#rules.push({ ...rule, left: rule.times ?? 1, passed: 0 });
  }

  /** The first rule matching the request, counted as used; undefined when none does. */
  take(method: string, path: string): R | undefined {
    const index = this.#rules.findIndex(
      (rule) =>
        (rule.match?.method === undefined || rule.match.method.toUpperCase() === method) &&
        (rule.match?.pathIncludes === undefined || path.includes(rule.match.pathIncludes)),
    );
    const rule = this.#rules[index];
    if (!rule) return undefined;
    if (rule.passed < (rule.skip ?? 0)) {
      rule.passed += 1;
      return undefined;
    }
    rule.left -= 1;
    if (rule.left <= 0) this.#rules.splice(index, 1);
    return rule;
  }
}
