/**
 * The faults the simulator can inject into webhook deliveries, each with a rate from 0 to 1. One draw of a
 * seeded random source decides each delivery's fault, so the faults are exclusive (their rates may sum to
 * at most 1) and a run is reproducible from its seed.
 */

/** What happened to a delivery on purpose. */
export type DeliveryFault = 'drop' | 'duplicate' | 'tamper' | 'unsigned';

/** The rate of each fault, 0 (never, the default) to 1 (every delivery). */
export interface FaultRates {
  /** Never delivered. */
  readonly dropRate?: number | undefined;
  /** Delivered twice. */
  readonly duplicateRate?: number | undefined;
  /** Body changed after signing, so its body_hash no longer matches. */
  readonly tamperRate?: number | undefined;
  /** Sent without X-Webhook-Signature. */
  readonly unsignedRate?: number | undefined;
}

/** The rates in the order their slices of [0, 1) are laid out. */
const FAULT_ORDER: readonly (readonly [DeliveryFault, keyof FaultRates])[] = [
  ['drop', 'dropRate'],
  ['duplicate', 'duplicateRate'],
  ['tamper', 'tamperRate'],
  ['unsigned', 'unsignedRate'],
];

/** Throws TypeError unless every rate is within [0, 1] and they sum to at most 1. */
export function assertFaultRates(rates: FaultRates): void {
  let sum = 0;
  for (const [, key] of FAULT_ORDER) {
    const rate = rates[key] ?? 0;
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) {
      throw new TypeError(`${key} must be a number from 0 to 1, got ${String(rate)}`);
    }
    sum += rate;
  }
  // A little slack so that 0.1 + 0.2 + 0.7 is accepted despite floating point.
  if (sum > 1 + 1e-9) throw new TypeError(`fault rates must sum to at most 1, got ${sum}`);
}

/** The fault a draw `u` in [0, 1) selects, or null for a clean delivery. */
export function pickFault(rates: FaultRates, u: number): DeliveryFault | null {
  let threshold = 0;
  for (const [fault, key] of FAULT_ORDER) {
    const rate = rates[key] ?? 0;
    threshold += rate;
    if (rate > 0 && u < threshold) return fault;
  }
  return null;
}
