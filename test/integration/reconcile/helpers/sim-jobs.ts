/**
 * Jobs for reconcile tests: launched on a simulator over plain HTTP (the launcher's exact answer kept),
 * and a fetch for the client that counts the finder requests that reach the simulator, per job.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimulator, type Simulator } from '../../../../src/simulator/create-simulator.js';
import type { SimulatorOptions } from '../../../../src/simulator/simulator-options.js';
import { runCliCaptured } from '../../../helpers/cli-harness.js';

/** A launched job and the exact text the launcher answered. */
export interface LaunchedJob {
  readonly job_id: string;
  readonly kind: 'search_contact' | 'job_change';
  readonly status: string;
  readonly text: string;
}

const BODIES = {
  search_contact: (i: number) => ({ domain: `acme-${i}.com`, page_size: 2 }),
  job_change: (i: number) => ({ contact_full_name: `Jane Doe ${i}`, company_domain: `globex-${i}.com` }),
};

/** Launches `count` jobs, alternating Search Contact and Job Change, with `webhookUrl` when given. */
export async function launchJobs(
  sim: Simulator,
  count: number,
  options: { webhookUrl?: string; offset?: number; kinds?: readonly LaunchedJob['kind'][] } = {},
): Promise<LaunchedJob[]> {
  const kinds = options.kinds ?? ['search_contact', 'job_change'];
  const jobs: LaunchedJob[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length]!;
    const body = {
      ...BODIES[kind]((options.offset ?? 0) + i),
      ...(options.webhookUrl ? { webhook_url: options.webhookUrl } : {}),
    };
    const path = kind === 'search_contact' ? '/v1/search/contact' : '/v1/job/change';
    const response = await fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': sim.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`launch answered ${response.status}: ${text}`);
    const parsed = JSON.parse(text) as { status: string; input: { task: { job_id: string } } };
    jobs.push({ job_id: parsed.input.task.job_id, kind, status: parsed.status, text });
  }
  return jobs;
}

/** A fetch that passes everything through and counts finder GETs by job_id, and their 429 answers. */
export interface CountingFetch {
  readonly fetch: typeof globalThis.fetch;
  /** Finder requests for `jobId` (any finder). */
  hits(jobId: string): number;
  /** All finder requests. */
  total(): number;
  /** Answers with status 429, any path. */
  rateLimited(): number;
}

/** Creates a {@link CountingFetch}. */
export function createCountingFetch(): CountingFetch {
  const counts = new Map<string, number>();
  let total = 0;
  let rateLimited = 0;
  const counting: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const isFinder =
      (init?.method ?? 'GET') === 'GET' &&
      (url.pathname === '/v1/search/contact' || url.pathname === '/v1/job/change');
    const jobId = url.searchParams.get('job_id');
    if (isFinder && jobId !== null) {
      counts.set(jobId, (counts.get(jobId) ?? 0) + 1);
      total += 1;
    }
    const response = await globalThis.fetch(input, init);
    if (response.status === 429) rateLimited += 1;
    return response;
  };
  return {
    fetch: counting,
    hits: (id) => counts.get(id) ?? 0,
    total: () => total,
    rateLimited: () => rateLimited,
  };
}

/** A simulator holding jobs launched before it started, so that launching spent none of its rate. */
export interface SeededSimulator {
  readonly sim: Simulator;
  readonly jobs: LaunchedJob[];
  close(): Promise<void>;
}

/**
 * Launches `count` jobs on a fast simulator that keeps its jobs in a file, then starts the simulator
 * the test talks to on that file with `options` (its rate, faults...), as a restart of the service.
 */
export async function startSimulatorWithJobs(
  count: number,
  options: SimulatorOptions = {},
): Promise<SeededSimulator> {
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-sim-'));
  const shared = { seed: 'reconcile-runs', apiKey: randomUUID(), dbFile: join(dir, 'jobs.jsonl') };
  const seeding = await createSimulator({ ...shared, rate: { perInterval: 10_000, intervalSeconds: 1 } });
  let jobs: LaunchedJob[];
  try {
    jobs = await launchJobs(seeding, count);
  } finally {
    await seeding.close();
  }
  const sim = await createSimulator({ ...shared, ...options });
  return {
    sim,
    jobs,
    async close() {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Records `jobs` in the ledger with `hooksync track`, one call per kind, as a user would. */
export async function trackJobs(jobs: readonly LaunchedJob[], env: Record<string, string>): Promise<void> {
  for (const kind of ['search_contact', 'job_change'] as const) {
    const ids = jobs.filter((job) => job.kind === kind).map((job) => job.job_id);
    if (ids.length > 0) await runCliCaptured(['track', '--kind', kind, ...ids], { env });
  }
}
