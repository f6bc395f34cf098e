import { describe, expect, it } from 'vitest';
import { SALESFORCE_DESTINATION } from '../../../src/destinations/salesforce/salesforce-destination.js';
import { createStartPacing } from '../../../src/destinations/start-pacing.js';

const idle = { yielding: false, draining: false };

describe('createStartPacing', () => {
  it('lingers while a batch is short of full, and not once `fullAt` events are queued', () => {
    const settings = { rate: undefined, batch: { size: 4_000, lingerMs: 500, fullAt: 200 } };
    expect(createStartPacing(settings, 4_000, () => 0).waitMs({ queued: 199, ...idle })).toBeGreaterThan(0);
    expect(createStartPacing(settings, 4_000, () => 0).waitMs({ queued: 200, ...idle })).toBe(0);
    const { fullAt: _, ...whole } = settings.batch;
    expect(
      createStartPacing({ rate: undefined, batch: whole }, 4_000, () => 0).waitMs({ queued: 200, ...idle }),
    ).toBeGreaterThan(0);
  });

  it('a Salesforce lane sends a collections call’s worth of events at once, although its batch is a Bulk job’s', () => {
    const parsed = SALESFORCE_DESTINATION.parse({
      name: 'sf',
      type: 'salesforce',
      login_url: 'https://acme.my.salesforce.com',
      auth: { grant: 'client_credentials', client_id: { env: 'A' }, client_secret: { env: 'B' } },
    });
    if (!parsed.success) throw parsed.error;
    const settings = parsed.data.dispatch!;
    expect(settings.batch).toEqual({ size: 4_000, lingerMs: 500, fullAt: 200 });
    const pacing = createStartPacing(settings, settings.batch!.size, () => 0);
    expect(pacing.waitMs({ queued: 450, ...idle })).toBe(0);
  });
});
