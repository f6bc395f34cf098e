/**
 * A CRM's trouble (a thrown `CrmError`) as an attempt result, pure: credentials or scopes refused pause, a
 * rate limit waits, a 5xx or a malformed answer is retried, a refusal fails. Shared by the CRM lane
 * (trouble-result.ts, which adds the lane's deferral and resume hint) and the owner lookups of alerts.
 */
import { boundOutsideText } from '../../contract/outside-text.js';
import type { CrmError } from '../../errors.js';
import type { AttemptResult } from '../destination-type.js';
import { MAX_RETRY_AFTER_MS } from '../plan-retry.js';

/** The attempt result `error` means; its text bounded (what the CRM said reaches logs and the status page). */
export function crmTroubleResult(error: CrmError): AttemptResult {
  const { status } = error;
  const text = boundOutsideText(error.trouble.error);
  const { trouble } = error;
  switch (trouble.kind) {
    case 'wait':
      // However long the CRM asked for, a pause ends within a day (plan-retry's bound on every wait).
      return {
        outcome: 'wait',
        status: status ?? 429,
        error: text,
        waitMs: Math.min(Math.max(0, trouble.waitMs), MAX_RETRY_AFTER_MS),
      };
    case 'pause':
      return { outcome: 'pause', status: status ?? 0, error: text };
    case 'retry':
      return {
        outcome: 'retry',
        status,
        error: text,
        ...(trouble.retryAfterMs !== undefined ? { retryAfterMs: trouble.retryAfterMs } : {}),
      };
    case 'fail':
      return { outcome: 'fail', status, error: text };
  }
}
