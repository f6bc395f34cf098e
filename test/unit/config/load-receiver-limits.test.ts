import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/errors.js';
import { DEFAULT_DELIVERY_LIMITS, resolveDeliveryLimits } from '../../../src/receiver/delivery-limits.js';

describe('the receiver limits in the environment', () => {
  it('reads each variable as a non-negative integer and leaves the rest to their defaults', () => {
    const config = loadConfig({
      HOOKSYNC_BODY_BUDGET_BYTES: '1048576',
      HOOKSYNC_QUARANTINE_RATE_PER_MINUTE: ' 0 ',
      HOOKSYNC_UNSIGNED_FETCH_PER_MINUTE: '',
      HOOKSYNC_BODY_BUDGET_WAIT_MS: '0',
    });
    expect(config.receiverLimits).toEqual({
      bodyBudgetBytes: 1_048_576,
      quarantineRatePerMinute: 0,
      bodyBudgetWaitMs: 0,
    });
    const limits = resolveDeliveryLimits(config.receiverLimits);
    expect(limits.bodyBudgetBytes).toBe(1_048_576);
    // 0: no wait for room, the 429 at once.
    expect(limits.bodyBudgetWaitMs).toBe(0);
    expect(DEFAULT_DELIVERY_LIMITS.bodyBudgetWaitMs).toBe(2_000);
    expect(limits.maxUnverified).toBe(DEFAULT_DELIVERY_LIMITS.maxUnverified);
  });

  it('refuses a value that is not a non-negative integer with one line naming the variable', () => {
    expect(() => loadConfig({ HOOKSYNC_BODY_BUDGET_WAIT_MS: '2s' })).toThrow(
      /^HOOKSYNC_BODY_BUDGET_WAIT_MS must be a non-negative integer/,
    );
    for (const value of ['-1', '1.5', '256MiB', '1e9', '0']) {
      expect(() => loadConfig({ HOOKSYNC_BODY_BUDGET_BYTES: value })).toThrow(ConfigError);
      expect(() => loadConfig({ HOOKSYNC_BODY_BUDGET_BYTES: value })).toThrow(
        /^HOOKSYNC_BODY_BUDGET_BYTES must be/,
      );
    }
  });
});
