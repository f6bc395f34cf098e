/** A CRM call whose 404 means "no such record": no answer, not trouble (owner lookups). */
import { CrmError } from '../../errors.js';

/** `call`'s answer, or undefined when the CRM answered 404; other trouble is thrown as it came. */
export async function unlessMissing<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CrmError && error.status === 404) return undefined;
    throw error;
  }
}
