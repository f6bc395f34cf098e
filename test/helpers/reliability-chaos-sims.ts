/**
 * The service side of a chaos run: two simulators of one account, so that one run has both kinds of
 * retry tokens. `resigning` signs every retry anew (fresh jti and iat); `reusing` (reuseToken) sends its
 * first token again. They share the API key and, through one key file, the signing key: `reusing` loads
 * the key `resigning` wrote, and when `resigning` rotates, `reusing` goes on signing with the retired key,
 * which the key set keeps publishing for its grace period (a signer mid-rollout). Receivers trust the key
 * set of `resigning`. Both inject the faults: 10 % duplicated, 5 % tampered, 5 % unsigned, 5 %
 * dropped.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Client, createClient } from '../../src/client/create-client.js';
import { createSimulator, type Simulator } from '../../src/simulator/create-simulator.js';
import type { FaultRates } from '../../src/simulator/delivery-faults.js';

/** The fault mix. */
export const CHAOS_FAULTS: FaultRates = Object.freeze({
  duplicateRate: 0.1,
  tamperRate: 0.05,
  unsignedRate: 0.05,
  dropRate: 0.05,
});

/** Search Contact and Job Change launches answer RUNNING and finish this much later (ms). */
export const CHAOS_ASYNC_MS = 25;

/** A rate no chaos run reaches: the runs test delivery, not pacing. */
const UNLIMITED = Object.freeze({ perInterval: 1_000_000, intervalSeconds: 1 });

/** Which simulator launched a job. */
export type ChaosSender = 'resigning' | 'reusing';

/** The two simulators and what the test needs of them. */
export interface ChaosSimulators {
  readonly resigning: Simulator;
  readonly reusing: Simulator;
  readonly apiKey: string;
  /** The key set the receivers trust. */
  readonly jwksUrl: string;
  /** The simulator holding `jobId`, if any. */
  ownerOf(jobId: string): Simulator | undefined;
  /** The job's exact text as its simulator holds it. */
  jobText(jobId: string): string | undefined;
  /** A client of `sender`'s simulator, unpaced for the test's purposes. */
  client(sender: ChaosSender): Client;
  /** A client whose finder calls go to the simulator holding the job (the account seen as one service). */
  accountClient(): Client;
  close(): Promise<void>;
}

/** Starts both simulators; `dir` holds their shared key file. */
export async function startChaosSimulators(dir: string, retryBaseMs: number): Promise<ChaosSimulators> {
  const apiKey = randomUUID();
  const shared = {
    apiKey,
    keysFile: join(dir, 'signing-keys.json'),
    retryBaseMs,
    asyncMs: CHAOS_ASYNC_MS,
    faults: CHAOS_FAULTS,
    rate: UNLIMITED,
    balanceUsd: 1_000_000,
  };
  const resigning = await createSimulator({ ...shared, seed: 'chaos-resigning', reuseToken: false });
  const reusing = await createSimulator({ ...shared, seed: 'chaos-reusing', reuseToken: true }).catch(
    async (error: unknown) => {
      await resigning.close();
      throw error;
    },
  );
  const ownerOf = (jobId: string): Simulator | undefined =>
    resigning.jobText(jobId) !== undefined
      ? resigning
      : reusing.jobText(jobId) !== undefined
        ? reusing
        : undefined;

  // The finders of the account, whichever simulator ran the job: a router in front of the two.
  const routingFetch: typeof globalThis.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const jobId = url.searchParams.get('job_id');
    const owner = jobId === null ? undefined : ownerOf(jobId);
    if (owner !== undefined) {
      const target = new URL(owner.url);
      url.host = target.host;
    }
    return globalThis.fetch(url, init);
  };
  const clientOptions = { apiKey, rateLimit: UNLIMITED, pacingScope: 'rate-limited' as const };

  return {
    resigning,
    reusing,
    apiKey,
    jwksUrl: resigning.jwksUrl,
    ownerOf,
    jobText: (jobId) => ownerOf(jobId)?.jobText(jobId),
    client: (sender) =>
      createClient({ ...clientOptions, baseUrl: sender === 'resigning' ? resigning.url : reusing.url }),
    accountClient: () => createClient({ ...clientOptions, baseUrl: resigning.url, fetch: routingFetch }),
    async close() {
      await Promise.all([resigning.close(), reusing.close()]);
    },
  };
}
