/**
 * What the simulator charges per job, and the Usage object it reports (Resources, Usage object). Money is
 * kept in integer micro-dollars (1 USD = 1,000,000) and turned into JSON numbers only when written out.
 */
import type { Usage } from '../contract/resources.js';

/** One million micro-dollars to the dollar. */
export const MICROS_PER_USD = 1_000_000;

/**
 * The simulator's prices, in micro-dollars per item (the service does not publish its own):
 * a revealed company $0.03, a person in a Search Contact page $0.01, a contact checked by Job Change $0.02,
 * a phone $0.05 (never charged: no operation here returns phones). A reveal that finds no company is free.
 */
export const PRICE_TABLE_MICROS = Object.freeze({
  company_reveal_company: 30_000,
  search_contact_person: 10_000,
  job_change_person: 20_000,
  phone: 50_000,
});

/** Items a job returned, by what the price table charges for. */
export interface UsageCounts {
  readonly persons: number;
  readonly personUnitMicros: number;
  readonly phones: number;
  readonly companies: number;
}

/** A job's charge before it is taken: the parts and their sum, in micro-dollars. */
export interface Charge {
  readonly counts: UsageCounts;
  readonly personsMicros: number;
  readonly phonesMicros: number;
  readonly companiesMicros: number;
  readonly totalMicros: number;
}

/** Prices `counts` with {@link PRICE_TABLE_MICROS}. */
export function priceCharge(counts: UsageCounts): Charge {
  const personsMicros = counts.persons * counts.personUnitMicros;
  const phonesMicros = counts.phones * PRICE_TABLE_MICROS.phone;
  const companiesMicros = counts.companies * PRICE_TABLE_MICROS.company_reveal_company;
  return {
    counts,
    personsMicros,
    phonesMicros,
    companiesMicros,
    totalMicros: personsMicros + phonesMicros + companiesMicros,
  };
}

/** Micro-dollars as a JSON number of dollars (exact to the micro-dollar: an integer over 10^6). */
export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** Dollars (as given on the command line) in micro-dollars, rounded to the nearest micro-dollar. */
export function usdToMicros(usd: number): number {
  if (!Number.isFinite(usd) || usd < 0)
    throw new TypeError(`an amount in USD must be >= 0, got ${String(usd)}`);
  return Math.round(usd * MICROS_PER_USD);
}

/** The Usage object of a job once `charge` is taken and `balanceMicros` is left. */
export function buildUsage(charge: Charge, balanceMicros: number): Usage {
  return {
    total_usd: microsToUsd(charge.totalMicros),
    balance_remaining_usd: microsToUsd(balanceMicros),
    persons_count: charge.counts.persons,
    persons_usd: microsToUsd(charge.personsMicros),
    phones_count: charge.counts.phones,
    phones_usd: microsToUsd(charge.phonesMicros),
    companies_count: charge.counts.companies,
    companies_usd: microsToUsd(charge.companiesMicros),
  };
}
