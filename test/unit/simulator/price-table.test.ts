import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/errors.js';
import { AccountBalance } from '../../../src/simulator/account-balance.js';
import {
  buildUsage,
  microsToUsd,
  PRICE_TABLE_MICROS,
  priceCharge,
  usdToMicros,
} from '../../../src/simulator/price-table.js';

const searchPage = (persons: number) =>
  priceCharge({
    persons,
    personUnitMicros: PRICE_TABLE_MICROS.search_contact_person,
    phones: 0,
    companies: 0,
  });

describe('price table and usage', () => {
  it('prices each part and sums them', () => {
    const charge = priceCharge({ persons: 3, personUnitMicros: 10_000, phones: 2, companies: 1 });
    expect(charge).toMatchObject({ personsMicros: 30_000, phonesMicros: 100_000, companiesMicros: 30_000 });
    expect(charge.totalMicros).toBe(160_000);
    expect(buildUsage(charge, 999_840_000)).toEqual({
      total_usd: 0.16,
      balance_remaining_usd: 999.84,
      persons_count: 3,
      persons_usd: 0.03,
      phones_count: 2,
      phones_usd: 0.1,
      companies_count: 1,
      companies_usd: 0.03,
    });
  });

  it('keeps money exact where floats drift (0.1 + 0.2)', () => {
    const balance = new AccountBalance(usdToMicros(1));
    for (let i = 0; i < 10; i += 1) balance.take(searchPage(1));
    expect(microsToUsd(balance.micros)).toBe(0.9);
    let float = 1;
    for (let i = 0; i < 10; i += 1) float -= 0.01;
    expect(float).not.toBe(0.9);
  });

  it('refuses a charge the balance does not cover with QUOTA_ACCOUNT_OVER_QUOTA, charging nothing', () => {
    const balance = new AccountBalance(usdToMicros(0.05));
    expect(balance.take(searchPage(5))).toBe(0);
    const refusal = (() => {
      try {
        balance.take(searchPage(0));
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ServiceError);
    expect(refusal).toMatchObject({ status: 402, code: 'QUOTA_ACCOUNT_OVER_QUOTA', category: 'QUOTA' });
    const partly = new AccountBalance(usdToMicros(0.02));
    expect(() => partly.take(searchPage(3))).toThrow(ServiceError);
    expect(partly.micros).toBe(20_000);
    partly.reset();
    expect(partly.micros).toBe(20_000);
  });

  it('rejects bad amounts', () => {
    expect(() => usdToMicros(-1)).toThrow(TypeError);
    expect(() => new AccountBalance(1.5)).toThrow(TypeError);
  });
});
