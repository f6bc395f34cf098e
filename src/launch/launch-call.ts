/**
 * One launch of a built request, and which errors stop every launch after them: the pieces `hooksync launch` and a
 * watch (src/watches/) share, so that both send, price and stop the same way.
 */
import type { CallOptions } from '../client/call-options.js';
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
