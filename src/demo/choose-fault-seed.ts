/**
 * Rates alone cannot promise that each fault happens in a run of a couple dozen deliveries, so the demo
 * chooses its simulator seed: the first candidate whose fault draws put every fault where it shows
 * something. The simulator draws once per delivery, in dispatch order, from the seeded source
 * (seed, 'sim', 'delivery-faults') (src/simulator/webhook-dispatcher.ts); the demo checks afterwards
 * that the faults did happen, so a change there makes the demo fail loudly rather than prove nothing.
 */
import { createSeededRandom } from '../simulator/data/seeded-random.js';
import { type DeliveryFault, type FaultRates, pickFault } from '../simulator/delivery-faults.js';

/** Seeds tried are `${DEMO_SEED_PREFIX}${n}`, n from 1. */
export const DEMO_SEED_PREFIX = 'hooksync-demo-';
/** Candidates tried before giving up. */
export const DEFAULT_MAX_SEED_CANDIDATES = 10_000;

/** The fault each delivery of a run gets, in dispatch order (null: delivered cleanly). */
export function predictFaults(seed: string, rates: FaultRates, deliveries: number): (DeliveryFault | null)[] {
  const random = createSeededRandom(seed, 'sim', 'delivery-faults');
  return Array.from({ length: deliveries }, () => pickFault(rates, random.next()));
}

/** Which deliveries of the run matter for which fault. */
export interface FaultRequirements {
  /** Deliveries in dispatch order. */
  readonly deliveries: number;
  /**
   * Indexes of deliveries whose job can only arrive by its callback (launched RUNNING): drops, tampering
   * and missing signatures there leave a job for reconcile to recover, duplicates a copy to ignore.
   */
  readonly recoverable: readonly number[];
  /** Indexes of deliveries signed after the key rotation: at least one of them must arrive signed. */
  readonly afterRotation: readonly number[];
}

/** True when `faults` puts each fault on a recoverable delivery and a signed delivery after the rotation. */
export function meetsFaultRequirements(
  faults: readonly (DeliveryFault | null)[],
  requirements: FaultRequirements,
): boolean {
  const onRecoverable = new Set(requirements.recoverable.map((i) => faults[i]));
  const everyFault = (['drop', 'duplicate', 'tamper', 'unsigned'] as const).every((f) =>
    onRecoverable.has(f),
  );
  const signedAfterRotation = requirements.afterRotation.some((i) => {
    const fault = faults[i];
    return fault === null || fault === 'duplicate';
  });
  return everyFault && signedAfterRotation;
}

/** The first seed meeting `requirements` at `rates`; throws Error when none of the candidates does. */
export function chooseFaultSeed(
  rates: FaultRates,
  requirements: FaultRequirements,
  maxCandidates: number = DEFAULT_MAX_SEED_CANDIDATES,
): string {
  for (let n = 1; n <= maxCandidates; n += 1) {
    const seed = `${DEMO_SEED_PREFIX}${n}`;
    if (meetsFaultRequirements(predictFaults(seed, rates, requirements.deliveries), requirements))
      return seed;
  }
  throw new Error(`no seed among ${maxCandidates} candidates injects every fault where the demo needs it`);
}
