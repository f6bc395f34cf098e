/**
 * A CRM call's trouble as the lane's attempt result: a rate limit defers every pending event of the
 * destination until the CRM's window reopens (every replica then waits, and no attempt is spent);
 * credentials or scopes refused pause it; a 5xx or a malformed answer is retried on the schedule; a refusal
 * fails the events.
 */
import { boundOutsideText } from '../../contract/outside-text.js';
import { CrmError } from '../../errors.js';
import type { AttemptResult, DestinationDeps } from '../destination-type.js';
import { deferPendingEvents } from '../outbox.js';
import { MAX_RETRY_AFTER_MS } from '../plan-retry.js';
import { whenUnlocked } from '../when-unlocked.js';

/** The attempt result of `error`; rethrows what is not a `CrmError` (a bug, not the CRM's answer). */
export async function attemptResultOf(
  error: unknown,
  context: { readonly name: string; readonly crm: string; readonly deps: DestinationDeps },
): Promise<AttemptResult> {
  if (!(error instanceof CrmError)) throw error;
  const { status } = error;
  // What the CRM said reaches logs, last_error and the status page: bounded, whatever it sent.
  const trouble = { ...error.trouble, error: boundOutsideText(error.trouble.error) };
  const { name, deps } = context;
  switch (trouble.kind) {
    case 'wait': {
      const nowMs = deps.now();
      // However long the CRM asked for, a pause ends within a day (plan-retry's bound on every wait).
      const waitMs = Math.min(Math.max(0, trouble.waitMs), MAX_RETRY_AFTER_MS);
      const until = new Date(nowMs + waitMs).toISOString();
      const reason = `${context.crm} ${trouble.policy} limit reached: paused until ${until} (${trouble.error})`;
      // The lane's connection waits for no lock (when-unlocked.ts): the deferral is retried like its other writes.
      await whenUnlocked(() =>
        deferPendingEvents(deps.database.db, name, until, reason, new Date(nowMs).toISOString()),
      );
      deps.logger.warn({ destination: name, policy: trouble.policy, until }, reason);
      return { outcome: 'wait', status: status ?? 429, error: reason, waitMs };
    }
    case 'pause':
      // Only the lane pauses the destination: a command's check or setup says what to fix, not to resume.
      return {
        outcome: 'pause',
        status: status ?? 0,
        error: `${trouble.error} Paused until resumed: hooksync destinations resume ${name}`,
      };
    case 'retry':
      return {
        outcome: 'retry',
        status,
        error: trouble.error,
        ...(trouble.retryAfterMs !== undefined ? { retryAfterMs: trouble.retryAfterMs } : {}),
      };
    case 'fail':
      return { outcome: 'fail', status, error: trouble.error };
  }
}
