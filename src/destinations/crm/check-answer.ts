/**
 * A CRM answer's shape, checked before use: a 2xx whose body is not what the CRM documents (`{"results":5}`)
 * is a failed attempt, retried on the lane's schedule and failed in the end like any other, never a crash
 * or a loop. The check is bounded work whatever the body (contract/answer-shape.ts): an array longer than
 * the call's page, or objects mixed with other values, is refused before the schema looks at an element.
 */
import type { z } from 'zod';
import { parseAnswer } from '../../contract/answer-shape.js';
import { boundOutsideText } from '../../contract/outside-text.js';
import { CrmError } from '../../errors.js';
import type { CrmAnswer } from './crm-http.js';

/** The answer's body as `schema` reads it, or a retryable `CrmError` naming what was wrong. */
export function checkAnswer<S extends z.ZodType>(
  schema: S,
  answer: CrmAnswer,
  what: {
    readonly crm: string;
    readonly call: string;
    /** The longest array the call can answer (its documented page size); default the shape check's own. */
    readonly maxItems?: number;
  },
): z.output<S> {
  const parsed = parseAnswer(schema, answer.body, what.maxItems);
  if (parsed.ok) return parsed.data;
  throw new CrmError(answer.status, {
    kind: 'retry',
    error: `${what.crm} answered ${what.call} with a body hooksync cannot read (${boundOutsideText(parsed.problem, 300)})`,
  });
}
