/**
 * One launch of a built request, and what its answer or error means: the pieces `hooksync launch` and a
 * watch (src/watches/) share, so that both send, price and stop the same way.
 */
import type { CallOptions } from '../client/call-options.js';
import { isPlainObject } from '../contract/custom-fields.js';
import { ServiceError } from '../errors.js';
import type { Launcher, LaunchResult } from './create-launcher.js';
import type { OperationSpec } from './launch-operations.js';

/** Sends `request` (built and checked for `operation`) through the launcher. */
export function launchRequest(
  launcher: Launcher,
  operation: OperationSpec,
  request: Readonly<Record<string, unknown>>,
  options?: CallOptions,
): Promise<LaunchResult> {
  switch (operation.kind) {
    case 'company_reveal':
      return launcher.companyReveal(request as never, options);
    case 'search_contact':
      return launcher.searchContact(request as never, options);
    case 'job_change':
      return launcher.jobChange(request as never, options);
  }
}

/** usage.total_usd of the answer, when it has one. */
export function usdOf(result: LaunchResult): number | undefined {
  const output = result.response.job.output;
  const usage = isPlainObject(output) && isPlainObject(output.usage) ? output.usage : undefined;
  const total = usage?.total_usd;
  return typeof total === 'number' && Number.isFinite(total) ? total : undefined;
}

/** Persons on a Search Contact page, when the answer has them. */
export function personsOf(result: LaunchResult): number | undefined {
  const output = result.response.job.output;
  return isPlainObject(output) && Array.isArray(output.persons) ? output.persons.length : undefined;
}

/**
 * Why an error stops every launch after it, or undefined when it concerns its own row only: `quota` (402,
 * the account is out of money), `auth` (401/403, the key is refused).
 */
export function stoppingReasonOf(error: unknown): 'quota' | 'auth' | undefined {
  if (!(error instanceof ServiceError)) return undefined;
  if (error.status === 402 || error.category === 'QUOTA') return 'quota';
  if (
    error.status === 401 ||
    error.status === 403 ||
    error.category === 'AUTH' ||
    error.category === 'PERMISSION'
  )
    return 'auth';
  return undefined;
}
