/**
 * A CRM answer's shape, checked before use: a 2xx whose body is not what the CRM documents (`{"results":5}`)
 * is a failed attempt, retried on the lane's schedule and failed in the end like any other, never a crash
 * or a loop.
 */
import type { z } from 'zod';
import { CrmError } from '../../errors.js';
import type { CrmAnswer } from './crm-http.js';

/** The answer's body as `schema` reads it, or a retryable `CrmError` naming what was wrong. */
export function checkAnswer<S extends z.ZodType>(
  schema: S,
  answer: CrmAnswer,
  what: { readonly crm: string; readonly call: string },
): z.output<S> {
  const parsed = schema.safeParse(answer.body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? 'the body' : issue.path.join('.');
  throw new CrmError(answer.status, {
    kind: 'retry',
    error: `${what.crm} answered ${what.call} with a body hooksync cannot read (${where}: ${issue?.message ?? 'malformed'})`,
  });
}
