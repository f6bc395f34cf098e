/**
 * `hooksync destinations replay <name> --dry-run` for a CRM destination: the events the replay would
 * queue, read in batches as the lane would send them, each record planned against what the CRM holds
 * (reads only, no write): create, update with the field-by-field change, or skip and why; and the calls the
 * real run would use (and, on a CRM that charges per call, its tokens). A watch change's event is planned as
 * its delivery would be (update only).
 */
import type { HooksyncDatabase } from '../../storage/open-database.js';
import { type ReplaySelection, selectReplayEvents } from '../destination-admin.js';
import type { OutboxDelivery } from '../destination-type.js';
import { loadEventChanges, loadEventJobs } from '../outbox.js';
import { changeDelivery } from '../plan-outcome.js';
import type { CrmDestination } from './crm-destination.js';
import { chunksOf } from './in-chunks.js';
import type { RecordReport } from './sync-batch.js';

/** The dry run's report. */
export interface DryRunReport {
  readonly events: number;
  /** Each record's plan, with the jobs it comes from. */
  readonly records: Array<Omit<RecordReport, 'events'> & { jobs: string[] }>;
  readonly associations: number;
  /** Calls the real run would make (reads included when a property is fill-empty). */
  readonly calls: number;
  /** Tokens the real run would spend, on a CRM that charges per call (Pipedrive); else undefined. */
  readonly tokens?: number;
  /** Events that would fail, with why. */
  readonly failed: Array<{ job_id: string; revision: number; error: string }>;
}

/** Plans the replay of `selection` without writing to the CRM or to the outbox. */
export async function dryRunReplay(options: {
  readonly database: HooksyncDatabase;
  readonly destination: CrmDestination;
  readonly name: string;
  readonly selection: ReplaySelection;
  readonly signal: AbortSignal;
}): Promise<DryRunReport> {
  const { database, destination, signal } = options;
  const events = await selectReplayEvents(database.db, options.name, options.selection)
    .select(['id', 'job_id', 'revision', 'change_id'])
    .orderBy('id')
    .execute();
  const report: DryRunReport = { events: events.length, records: [], associations: 0, calls: 0, failed: [] };
  let calls = 0;
  let associations = 0;
  let tokens: number | undefined;
  for (const chunk of chunksOf(events, destination.batchSize)) {
    const jobs = await loadEventJobs(
      database.db,
      chunk.map((event) => event.job_id),
      { envelope: false },
    );
    const changes = await loadEventChanges(
      database.db,
      chunk.flatMap((event) => (event.change_id === null ? [] : [String(event.change_id)])),
    );
    const deliveries: OutboxDelivery[] = [];
    for (const event of chunk) {
      if (event.change_id !== null) {
        const change = changes.get(String(event.change_id));
        if (change !== undefined) deliveries.push(changeDelivery(change));
        continue;
      }
      const job = jobs.get(event.job_id);
      if (job === undefined) continue;
      deliveries.push({
        eventId: `job_${job.job_id}_r${event.revision}`,
        jobId: job.job_id,
        revision: Number(event.revision),
        kind: job.kind,
        source: job.source,
        status: job.status,
        envelopeText: job.envelope,
      });
    }
    const planned = await destination.dryRun(deliveries, signal);
    report.records.push(
      ...planned.records.map(({ events: indexes, ...record }) => ({
        ...record,
        jobs: [...new Set(indexes.map((index) => deliveries[index]!.jobId))],
      })),
    );
    calls += planned.calls;
    if (planned.tokens !== undefined) tokens = (tokens ?? 0) + planned.tokens;
    associations += planned.associations;
    for (const [index, error] of planned.failedEvents) {
      const delivery = deliveries[index]!;
      report.failed.push({ job_id: delivery.jobId, revision: delivery.revision, error });
    }
  }
  return { ...report, calls, associations, ...(tokens !== undefined ? { tokens } : {}) };
}
