/**
 * The chaos run itself, the same on SQLite and Postgres: launches the jobs through the library launcher
 * (each recorded in the ledger; finished answers stored at once, as a user's stack would), at a steady
 * rate, while the receivers are SIGKILLed and restarted and the signing key rotates; then waits for every
 * delivery and retry to settle. Reconcile and the checks are the test's.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createLauncher, type Launcher } from '../../src/launch/create-launcher.js';
import { createJobStore } from '../../src/storage/job-store/job-store.js';
import type { HooksyncDatabase } from '../../src/storage/open-database.js';
import type { ChaosSender, ChaosSimulators } from './reliability-chaos-sims.js';
import type { RestartableServe } from './reliability-serve.js';

/** The kinds, launched in turn. */
export const CHAOS_KINDS = ['company_reveal', 'search_contact', 'job_change'] as const;
/** A kind the chaos runs launch. */
export type ChaosKind = (typeof CHAOS_KINDS)[number];

/** Where in the launches (fraction done) each SIGKILL happens. */
export const KILL_POINTS = [0.25, 0.55, 0.8] as const;
/** Where in the launches the `resigning` simulator rotates its signing key (between two crashes). */
export const ROTATION_POINT = 0.4;

/** One launched job. */
export interface ChaosJob {
  readonly job_id: string;
  readonly kind: ChaosKind;
  readonly sender: ChaosSender;
  /** The launcher stored it at once (a finished answer: every Company Reveal). */
  readonly storedAtLaunch: boolean;
}

/** What a run needs. */
export interface ChaosRunOptions {
  readonly sims: ChaosSimulators;
  /** The test's own connection to the receivers' database (for the launcher's ledger and store). */
  readonly database: HooksyncDatabase;
  /** Killed in turn, one per kill point. */
  readonly receivers: readonly RestartableServe[];
  /** The webhook_url every launch carries. */
  readonly webhookUrl: string;
  readonly jobs: number;
  readonly launchesPerSecond: number;
  readonly concurrency: number;
  /** Wait for the deliveries to settle at most this long (ms). */
  readonly settleTimeoutMs: number;
}

/** What happened, for the checks and the figures. */
export interface ChaosRun {
  readonly jobs: readonly ChaosJob[];
  /** Receiver index killed at each kill point, in order. */
  readonly killed: readonly number[];
  readonly rotatedKid: string;
  readonly launchMs: number;
  readonly settleMs: number;
}

function launchOne(launcher: Launcher, kind: ChaosKind, i: number, webhook_url: string) {
  switch (kind) {
    case 'company_reveal':
      return launcher.companyReveal({
        ip: `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}`,
        webhook_url,
      });
    case 'search_contact':
      return launcher.searchContact({
        domain: `chaos-${i}.example.com`,
        page_size: 3,
        webhook_url,
        custom_fields: { n: i },
      });
    case 'job_change':
      return launcher.jobChange({
        contact_full_name: `Chaos Person ${i}`,
        company_domain: `chaos-${i}.example.org`,
        webhook_url,
      });
  }
}

/** Launches, crashes, rotates and settles; see the file comment. */
export async function runChaos(options: ChaosRunOptions): Promise<ChaosRun> {
  const { sims, database, receivers, jobs: count } = options;
  const store = createJobStore({ database });
  const launchers: Record<ChaosSender, Launcher> = {
    resigning: createLauncher({ client: sims.client('resigning'), store, db: database.db }),
    reusing: createLauncher({ client: sims.client('reusing'), store, db: database.db }),
  };
  const jobs: ChaosJob[] = [];
  let done = 0;
  let rotatedKid = '';
  const started = performance.now();
  let nextIndex = 0;
  let failure: unknown;

  async function worker(): Promise<void> {
    for (let i = nextIndex++; i < count && failure === undefined; i = nextIndex++) {
      const wait = started + (i * 1000) / options.launchesPerSecond - performance.now();
      if (wait > 0) await sleep(wait);
      if (i === Math.floor(count * ROTATION_POINT)) rotatedKid = sims.resigning.rotateKeys().kid;
      const kind = CHAOS_KINDS[i % CHAOS_KINDS.length]!;
      // Alternate senders within each kind, so that both token policies meet every kind.
      const sender: ChaosSender = Math.floor(i / CHAOS_KINDS.length) % 2 === 0 ? 'resigning' : 'reusing';
      const result = await launchOne(launchers[sender], kind, i, options.webhookUrl);
      jobs.push({ job_id: result.job_id, kind, sender, storedAtLaunch: result.stored !== undefined });
      done += 1;
    }
  }

  // The crashes: each waits for its point in the launches, then kills and restarts one receiver.
  const killed: number[] = [];
  async function crasher(): Promise<void> {
    for (const [n, point] of KILL_POINTS.entries()) {
      while (failure === undefined && done < Math.floor(count * point)) await sleep(20);
      if (failure !== undefined) return;
      const index = n % receivers.length;
      await receivers[index]!.crash();
      killed.push(index);
      await receivers[index]!.restart();
    }
  }

  try {
    // allSettled: a failed launch must not leave the crasher restarting receivers behind the test's back.
    const settled = await Promise.allSettled([
      ...Array.from({ length: options.concurrency }, () =>
        worker().catch((error: unknown) => {
          failure ??= error;
          throw error;
        }),
      ),
      crasher(),
    ]);
    const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (rejected) throw rejected.reason;
  } finally {
    await store.close();
  }
  const launchMs = Math.round(performance.now() - started);
  const settleStarted = performance.now();
  await Promise.all(
    [sims.resigning, sims.reusing].map((sim) =>
      sim.waitForDeliveries({ timeoutMs: options.settleTimeoutMs }),
    ),
  );
  return {
    jobs,
    killed,
    rotatedKid,
    launchMs,
    settleMs: Math.round(performance.now() - settleStarted),
  };
}
