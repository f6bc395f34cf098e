/**
 * runDemo: the whole flow in one process, against the simulator, on SQLite in a temporary folder. It
 * launches jobs through hooksync (so the ledger knows them), lets the simulator spoil some callbacks and
 * rotate its key midway, reconciles what never arrived, exports every built-in template, and checks the
 * result: every job stored once and exactly as the service holds it. Returns a report; whatever it
 * opened (simulator, receiver, store, temporary folder) it closes, in `finally`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import { createClient } from '../client/create-client.js';
import { loadConfig } from '../config/load-config.js';
import { parseDestinations } from '../destinations/load-destinations.js';
import { createLauncher, type LaunchResult } from '../launch/create-launcher.js';
import { runReconcile } from '../reconcile/run-reconcile.js';
import { startReceiver } from '../server/start-receiver.js';
import { createSimulator } from '../simulator/create-simulator.js';
import type { DeliveryFault } from '../simulator/delivery-faults.js';
import type { DeliveryRecord } from '../simulator/webhook-dispatcher.js';
import type { Database } from '../storage/database.js';
import { createJobStore } from '../storage/job-store/job-store.js';
import { asRecord, recordAt, textAt } from '../storage/normalize-values.js';
import { checkDemoInvariants } from './check-demo-invariants.js';
import { chooseFaultSeed, type FaultRequirements } from './choose-fault-seed.js';
import { DEMO_DESTINATION_NAME, startDemoConsumer } from './demo-destination.js';
import {
  DEMO_ASYNC_MS,
  DEMO_COMPANY_REVEALS,
  DEMO_FAULT_RATES,
  DEMO_JOB_CHANGES,
  DEMO_PAGE_SIZE,
  DEMO_RETRY_BASE_MS,
  DEMO_SEARCHES,
  DEMO_VISITOR_IPS,
  pickContacts,
  pickSearchDomains,
} from './demo-plan.js';
import type { DemoReport } from './demo-report.js';
import { exportDemoFiles } from './export-demo-files.js';
import {
  countPendingLedger,
  loadDeliveryOutcomes,
  loadRefusals,
  loadStoredJobs,
  loadSyncedContacts,
} from './read-demo-results.js';

/** Phases of a run, reported through `onProgress` as they start. */
export const DEMO_STEPS = 7;
/** Longest wait for the simulator's callbacks (and their retries) to settle, per wave, in ms. */
export const DEMO_DELIVERY_TIMEOUT_MS = 20_000;

/** A phase starting. */
export interface DemoProgress {
  /** 1 to {@link DEMO_STEPS}. */
  readonly step: number;
  readonly steps: number;
  readonly title: string;
}

/** Knobs of {@link runDemo}. */
export interface RunDemoOptions {
  /** Where the exported files go (created if missing). */
  readonly outDir: string;
  /** Keep the temporary folder with the SQLite database (default false: removed at the end). */
  readonly keepDatabase?: boolean;
  /** Where the temporary folder is made (default the OS's). */
  readonly tmpDir?: string;
  /** Default silent. */
  readonly logger?: Logger;
  readonly onProgress?: (progress: DemoProgress) => void;
  /** Stops the run between phases (everything opened is still closed). */
  readonly signal?: AbortSignal;
  /** The receiver's store worker script (default the built one; see StartReceiverOptions.storeWorkerUrl). */
  readonly storeWorkerUrl?: URL;
}

/** Delivery order: the reveals call back as they are launched, then the searches, then the job changes. */
const FAULT_REQUIREMENTS: FaultRequirements = {
  deliveries: DEMO_COMPANY_REVEALS + DEMO_SEARCHES + DEMO_JOB_CHANGES,
  recoverable: range(DEMO_COMPANY_REVEALS, DEMO_SEARCHES + DEMO_JOB_CHANGES),
  afterRotation: range(DEMO_COMPANY_REVEALS + DEMO_SEARCHES, DEMO_JOB_CHANGES),
};

function range(start: number, length: number): number[] {
  return Array.from({ length }, (_, i) => start + i);
}

/** Runs the demo; rejects only when a phase cannot run at all (the report lists broken invariants). */
export async function runDemo(options: RunDemoOptions): Promise<DemoReport> {
  const startedMs = performance.now();
  const logger = options.logger ?? pino({ level: 'silent' });
  const outDir = resolve(options.outDir);
  const folder = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'hooksync-demo-'));
  const databasePath = join(folder, 'hooksync.db');
  const keepDatabase = options.keepDatabase === true;
  const closers: Array<() => Promise<void>> = [];
  let step = 0;
  const begin = (title: string): void => {
    options.signal?.throwIfAborted();
    step += 1;
    options.onProgress?.({ step, steps: DEMO_STEPS, title });
  };
  try {
    begin('starting the simulator and the receiver (SQLite in a temporary folder)');
    const seed = chooseFaultSeed(DEMO_FAULT_RATES, FAULT_REQUIREMENTS);
    const sim = await createSimulator({
      seed,
      faults: DEMO_FAULT_RATES,
      asyncMs: DEMO_ASYNC_MS,
      retryBaseMs: DEMO_RETRY_BASE_MS,
      logger: logger.child({ component: 'simulator' }),
    });
    closers.push(() => sim.close());
    // An empty environment: the demo must not pick up the user's database or service.
    const config = loadConfig(
      {},
      { apiBaseUrl: sim.url, apiKey: sim.apiKey, jwksUrl: sim.jwksUrl, databaseUrl: databasePath, port: 0 },
    );
    const consumer = await startDemoConsumer();
    closers.push(() => consumer.close());
    const destinations = await parseDestinations(
      {
        destinations: [
          { name: DEMO_DESTINATION_NAME, type: 'webhook', url: consumer.url, secret: consumer.secret },
        ],
      },
      {},
      'the demo destination',
    );
    const receiver = await startReceiver({
      config,
      logger,
      port: 0,
      destinations,
      ...(options.storeWorkerUrl ? { storeWorkerUrl: options.storeWorkerUrl } : {}),
    });
    closers.push(() => receiver.close());
    const { db } = receiver.database;
    const store = createJobStore({ database: receiver.database, logger });
    closers.push(() => store.close());
    const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger });
    const launcher = createLauncher({ client, store, db, logger });
    const webhook_url = `${receiver.url}/webhooks`;
    const launched: LaunchResult[] = [];

    begin(`launching ${DEMO_COMPANY_REVEALS} company reveals and ${DEMO_SEARCHES} contact searches`);
    for (const [i, ip] of DEMO_VISITOR_IPS.entries()) {
      launched.push(await launcher.companyReveal({ ip, webhook_url, custom_fields: { visit: i + 1 } }));
    }
    const domains = pickSearchDomains(launched.map(revealedDomain), DEMO_SEARCHES);
    for (const domain of domains) {
      launched.push(
        await launcher.searchContact({
          domain,
          page_size: DEMO_PAGE_SIZE,
          webhook_url,
          custom_fields: { campaign: 'website-visitors' },
        }),
      );
    }

    begin('receiving their callbacks (some dropped, duplicated, tampered with or unsigned)');
    await sim.waitForDeliveries({ timeoutMs: DEMO_DELIVERY_TIMEOUT_MS });
    // The contacts are read from the persons rows, which follow each acknowledgement.
    await receiver.store.settled();

    begin(`rotating the signing key, then checking ${DEMO_JOB_CHANGES} synced contacts for job changes`);
    const rotation = sim.rotateKeys();
    const searchIds = launched.filter((job) => job.kind === 'search_contact').map((job) => job.job_id);
    const contacts = pickContacts(await loadSyncedContacts(db, searchIds), domains, DEMO_JOB_CHANGES);
    for (const [i, contact] of contacts.entries()) {
      launched.push(
        await launcher.jobChange({
          contact_linkedin: contact.linkedin_url,
          contact_full_name: contact.full_name,
          company_domain: contact.company_domain,
          webhook_url,
          custom_fields: { crm_contact_id: `C-${1001 + i}` },
        }),
      );
    }
    await sim.waitForDeliveries({ timeoutMs: DEMO_DELIVERY_TIMEOUT_MS });

    begin('reconciling: fetching the jobs whose callbacks never made it from the finders');
    const reconcile = await runReconcile(
      { db, client, store, logger: quietExpectedWarnings(logger) },
      { olderThanMs: 0 },
    );

    begin(`exporting CSV and CRM import files to ${outDir}`);
    await receiver.store.settled();
    const exports = await exportDemoFiles(db, outDir);

    begin('checking that every job is stored once, exactly as the service holds it');
    await receiver.stats.flush();
    const deliveries = sim.deliveries();
    const outcomes = await loadDeliveryOutcomes(db);
    const refused = await loadRefusals(db);
    const stored = await loadStoredJobs(db);
    await waitForOutbox(db, DEMO_DELIVERY_TIMEOUT_MS);
    const handedOn = [...stored.keys()].filter((jobId) => consumer.jobIds.has(jobId)).length;
    const acceptedWithNewKey = deliveries.filter((d) => d.kid === rotation.kid && d.status === 200).length;
    const problems = [
      ...checkDemoInvariants({
        launched,
        stored,
        simulatorText: (jobId) => sim.jobText(jobId),
        deliveries,
        refused,
        reconcile,
        pendingLedger: await countPendingLedger(db),
        acceptedWithNewKey,
      }),
    ];
    if (handedOn < stored.size || consumer.badSignatures() > 0) {
      problems.push(
        `the demo destination received ${handedOn} of ${stored.size} stored jobs (${consumer.badSignatures()} with a bad signature)`,
      );
    }
    return {
      seed,
      databasePath,
      databaseKept: keepDatabase,
      outDir,
      durationMs: Math.round(performance.now() - startedMs),
      launched: {
        company_reveal: launched.filter((job) => job.kind === 'company_reveal').length,
        search_contact: searchIds.length,
        job_change: contacts.length,
      },
      faults: countFaults(deliveries),
      rotation: { previousKid: rotation.previousKid, kid: rotation.kid, acceptedWithNewKey },
      received: Object.values(outcomes).reduce((sum, n) => sum + n, 0),
      outcomes,
      duplicatesIgnored: (outcomes.duplicate ?? 0) + (outcomes.replay ?? 0),
      refused,
      reconcile,
      exports,
      jobsStored: stored.size,
      destination: { name: DEMO_DESTINATION_NAME, jobs: handedOn },
      problems,
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error: unknown) => logger.warn({ err: error }, 'demo: could not close cleanly'));
    }
    if (!keepDatabase) await rm(folder, { recursive: true, force: true });
  }
}

/** Waits until the outbox has nothing pending (the dispatcher runs beside the receiver), or the timeout. */
async function waitForOutbox(db: Kysely<Database>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const row = await db
      .selectFrom('outbox_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    if (Number(row.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Reconcile warns about every job it recovers: in production a lost callback deserves it, here the demo
 * provoked them and its summary reports them. At warn (the demo's default) they are left to the summary;
 * a user who asked for info or more still sees them.
 */
function quietExpectedWarnings(logger: Logger): Logger {
  if (logger.isLevelEnabled('info') || !logger.isLevelEnabled('warn')) return logger;
  return logger.child({ component: 'reconcile' }, { level: 'error' });
}

/** The domain of the company a reveal found, or null ({} company: an ISP, unresolved, ...). */
function revealedDomain(result: LaunchResult): string | null {
  return textAt(recordAt(recordAt(asRecord(result.response.job), 'output'), 'company'), 'domain');
}

/** Jobs whose callback each fault spoiled (a duplicated delivery counts once). */
function countFaults(deliveries: readonly DeliveryRecord[]): Record<DeliveryFault, number> {
  const jobs: Record<DeliveryFault, Set<string>> = {
    drop: new Set(),
    duplicate: new Set(),
    tamper: new Set(),
    unsigned: new Set(),
  };
  for (const d of deliveries) if (d.fault !== null) jobs[d.fault].add(d.job_id);
  return {
    drop: jobs.drop.size,
    duplicate: jobs.duplicate.size,
    tamper: jobs.tamper.size,
    unsigned: jobs.unsigned.size,
  };
}
