/**
 * A CRM call's trouble as the lane's attempt result: a rate limit defers every pending event of the
 * destination until the CRM's window reopens (every replica then waits, and no attempt is spent);
 * credentials or scopes refused pause it; a 5xx or a malformed answer is retried on the schedule; a refusal
 * fails the events.
 */
import { CrmError } from '../../errors.js';
import type { AttemptResult, DestinationDeps } from '../destination-type.js';
import { deferPendingEvents } from '../outbox.js';
import { whenUnlocked } from '../when-unlocked.js';
import { crmTroubleResult } from './crm-trouble.js';

/** The attempt result of `error`; rethrows what is not a `CrmError` (a bug, not the CRM's answer). */
export async function attemptResultOf(
  error: unknown,
  context: { readonly name: string; readonly crm: string; readonly deps: DestinationDeps },
): Promise<AttemptResult> {
  if (!(error instanceof CrmError)) throw error;
  const result = crmTroubleResult(error);
  const { name, deps } = context;
  switch (result.outcome) {
    case 'wait': {
      const nowMs = deps.now();
      const until = new Date(nowMs + result.waitMs).toISOString();
      const policy = error.trouble.kind === 'wait' ? error.trouble.policy : '';
      const reason = `${context.crm} ${policy} limit reached: paused until ${until} (${result.error})`;
      // The lane's connection waits for no lock (when-unlocked.ts): the deferral is retried like its other writes.
      await whenUnlocked(() =>
        deferPendingEvents(deps.database.db, name, until, reason, new Date(nowMs).toISOString()),
      );
      deps.logger.warn({ destination: name, policy, until }, reason);
      return { ...result, error: reason };
    }
    case 'pause':
      // Only the lane pauses the destination: a command's check or setup says what to fix, not to resume.
      return {
        ...result,
        error: `${result.error} Paused until resumed: hooksync destinations resume ${name}`,
      };
    default:
      return result;
  }
}
