/** Which properties an upsert sends: fill-empty never overwrites a value, overwrite sends all, skip none. */
import { describe, expect, it } from 'vitest';
import { planWrite, policyFor } from '../../../../src/destinations/crm/plan-writes.js';

const desired = {
  hooksync_domain: 'acme.com',
  name: 'Acme',
  industry: 'COMPUTER_SOFTWARE',
  description: 'Tools',
};

describe('planWrite', () => {
  it('fill-empty sends only what HubSpot holds no value for, and says what changes', () => {
    const plan = planWrite({
      desired,
      current: {
        hooksync_domain: 'acme.com',
        name: 'ACME (typed by a rep)',
        industry: '',
        description: null,
      },
      exists: true,
      keyProperty: 'hooksync_domain',
      policyOf: policyFor({ write: 'fill-empty', fields: {} }),
    });
    expect(plan.action).toBe('update');
    expect(plan.properties).toEqual({ industry: 'COMPUTER_SOFTWARE', description: 'Tools' });
    expect(plan.changes).toEqual([
      { property: 'industry', from: undefined, to: 'COMPUTER_SOFTWARE' },
      { property: 'description', from: undefined, to: 'Tools' },
    ]);
  });

  it('overwrite sends every value; a field set to skip is never sent; fill-empty per field wins over write', () => {
    const plan = planWrite({
      desired,
      current: { hooksync_domain: 'acme.com', name: 'Old', industry: 'X', description: 'Old text' },
      exists: true,
      keyProperty: 'hooksync_domain',
      policyOf: policyFor({ write: 'overwrite', fields: { industry: 'skip', description: 'fill-empty' } }),
    });
    expect(plan.properties).toEqual({ name: 'Acme' });
    expect(plan.changes).toEqual([{ property: 'name', from: 'Old', to: 'Acme' }]);
  });

  it('creates a record HubSpot does not hold, with the key', () => {
    const plan = planWrite({
      desired,
      current: undefined,
      exists: false,
      keyProperty: 'hooksync_domain',
      policyOf: policyFor({ write: 'fill-empty', fields: {} }),
    });
    expect(plan.action).toBe('create');
    expect(plan.properties).toEqual(desired);
  });

  it('skips a record with nothing left to send, and never sends an empty value', () => {
    const plan = planWrite({
      desired: { hooksync_domain: 'acme.com', name: 'Acme', description: '' },
      current: { hooksync_domain: 'acme.com', name: 'Acme Corp' },
      exists: true,
      keyProperty: 'hooksync_domain',
      policyOf: policyFor({ write: 'fill-empty', fields: {} }),
    });
    expect(plan).toEqual({ action: 'skip', properties: {}, changes: [] });
  });

  it('moved contacts overwrite title and company unless a field says otherwise', () => {
    const moved = policyFor({
      write: 'fill-empty',
      fields: { company: 'fill-empty' },
      overwriting: ['jobtitle', 'company'],
    });
    expect(moved('jobtitle')).toBe('overwrite');
    expect(moved('company')).toBe('fill-empty');
    expect(moved('firstname')).toBe('fill-empty');
  });
});
