/**
 * The one switch of the reliability suite: HOOKSYNC_RELIABILITY=full (set by `npm run test:reliability`)
 * runs the sizes of the issue; anything else runs the reduced sizes that keep `npm test` quick. Every
 * size, rate and time budget of test/reliability comes from here, nowhere else.
 */

/** Which run this is. */
export type ReliabilityMode = 'full' | 'reduced';

/** Every knob the reliability suite scales. */
export interface ReliabilityScale {
  readonly mode: ReliabilityMode;
  /** Jobs the chaos runs launch (the three kinds in turn). */
  readonly chaosJobs: number;
  /** Launches per second in the chaos runs, so that the SIGKILLs land while deliveries flow. */
  readonly chaosLaunchesPerSecond: number;
  /** Launches in flight at once. */
  readonly chaosLaunchConcurrency: number;
  /** Simulator webhook backoff base in ms (retry n waits base * 2^(n-1)). */
  readonly chaosRetryBaseMs: number;
  /** fast-check cases per property. */
  readonly fuzzRuns: number;
  /** Open slow-loris sockets during the resource test. */
  readonly slowLorisConnections: number;
  /** Deliveries signed with forged kids during the resource test. */
  readonly forgedKidDeliveries: number;
  /** Valid deliveries sent (one after another) while the attack runs. */
  readonly validDeliveriesDuringAttack: number;
  /** How long the resource attack lasts, in ms (past 40 s the server's header timeout closes sockets). */
  readonly attackMs: number;
  /** Time budget of one chaos test, in ms. */
  readonly chaosTimeoutMs: number;
  /** Time budget of one fuzz property, in ms. */
  readonly fuzzTimeoutMs: number;
  /** Time budget of the resource test, in ms. */
  readonly resourceTimeoutMs: number;
}

const FULL: ReliabilityScale = Object.freeze({
  mode: 'full',
  chaosJobs: 5000,
  chaosLaunchesPerSecond: 100,
  chaosLaunchConcurrency: 16,
  chaosRetryBaseMs: 200,
  fuzzRuns: 10_000,
  slowLorisConnections: 1000,
  forgedKidDeliveries: 2000,
  validDeliveriesDuringAttack: 300,
  attackMs: 45_000,
  chaosTimeoutMs: 240_000,
  fuzzTimeoutMs: 300_000,
  resourceTimeoutMs: 120_000,
});

const REDUCED: ReliabilityScale = Object.freeze({
  mode: 'reduced',
  chaosJobs: 300,
  chaosLaunchesPerSecond: 60,
  chaosLaunchConcurrency: 8,
  chaosRetryBaseMs: 150,
  fuzzRuns: 200,
  slowLorisConnections: 200,
  forgedKidDeliveries: 200,
  validDeliveriesDuringAttack: 40,
  attackMs: 6000,
  // Budgets guard against a hang, not a speed: `npm test` runs four files at once on CI's 2 cores, and a
  // CPU-bound fuzz or chaos run there takes several times what it takes alone.
  chaosTimeoutMs: 180_000,
  fuzzTimeoutMs: 120_000,
  resourceTimeoutMs: 120_000,
});

/** The mode of this run, read once from HOOKSYNC_RELIABILITY. */
export const RELIABILITY_MODE: ReliabilityMode =
  process.env.HOOKSYNC_RELIABILITY === 'full' ? 'full' : 'reduced';

/** The sizes of this run. */
export const RELIABILITY_SCALE: ReliabilityScale = RELIABILITY_MODE === 'full' ? FULL : REDUCED;
