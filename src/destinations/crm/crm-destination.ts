/**
 * A CRM destination from an adapter: verified companies and persons written into the CRM by key, in
 * batches (a short linger gathers them), fill-empty or overwrite per field; a watch's change (kind
 * `watch_change`) through the same mapping, its contact updated where the CRM holds it, never created. A rate limit defers every
 * pending event of the destination (so every replica waits); refused credentials pause it until resumed;
 * a record the CRM refuses fails only its events. Offers what the CLI asks of a CRM destination: a dry run,
 * and `setup` when the CRM has one.
 */
import { CrmError } from '../../errors.js';
import type {
  AttemptResult,
  Destination,
  DestinationDeps,
  OutboxDelivery,
  OutboxDestination,
} from '../destination-type.js';
import type { CrmAdapter, CrmObject } from './crm-adapter.js';
import type { CrmCounters } from './crm-counters.js';
import { createRecordIdStore } from './crm-record-ids.js';
import {
  atMostOneRecordEach,
  type CarriedIdField,
  type CrmTemplateNames,
  type CrmTemplates,
  changeRows,
  crmRows,
  loadCrmTemplates,
} from './crm-rows.js';
import { createFieldDefinitions } from './field-definitions.js';
import type { RecordIdStore } from './find-existing.js';
import { groupWarnings } from './group-warnings.js';
import { chunksOf } from './in-chunks.js';
import { type MappedBatch, mapRecords, type RecordShape } from './map-records.js';
import type { SetupReport } from './setup-report.js';
import { type RecordReport, type SyncReport, type SyncSettings, syncBatch } from './sync-batch.js';
import { attemptResultOf } from './trouble-result.js';
import { writeSegments } from './write-segments.js';

/** How `destinations setup` runs for a CRM that has one. */
export type CrmSetup = (options: {
  readonly templates: CrmTemplates;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}) => Promise<SetupReport>;

/** `destinations setup` on a CRM destination. */
export type SetupPortal = (options: { dryRun: boolean; signal: AbortSignal }) => Promise<SetupReport>;

/** What a CRM destination offers beyond the outbox interface. */
export interface CrmDestination extends OutboxDestination {
  /** Reads only: what a batch of deliveries (at most the CRM's batch) would write. */
  dryRun(deliveries: readonly OutboxDelivery[], signal: AbortSignal): Promise<SyncReport>;
  /** The CRM's batch size, in which a dry run reads the events. */
  readonly batchSize: number;
  /** `destinations setup`: fields and adoption; undefined when the CRM has no setup. */
  readonly setupPortal: SetupPortal | undefined;
}

/** Whether `destination` can plan a batch without writing (`replay --dry-run`). */
export function canDryRun(destination: Destination): destination is CrmDestination {
  return destination.kind === 'outbox' && 'dryRun' in destination;
}

/** The setup `destination` offers (`destinations setup`), if any. */
export function setupOf(destination: Destination): SetupPortal | undefined {
  return canDryRun(destination) ? destination.setupPortal : undefined;
}

/** Collaborators and settings of one CRM destination. */
export interface CrmDestinationOptions {
  readonly name: string;
  readonly adapter: CrmAdapter;
  readonly counters: CrmCounters;
  readonly templates: CrmTemplateNames;
  readonly shape: RecordShape;
  /** The `custom_fields` key carrying the record id, when not the templates' own (the shape's `recordId`). */
  readonly carriedIdKey?: string | undefined;
  readonly settings: SyncSettings;
  readonly setup?: CrmSetup | undefined;
  readonly deps: DestinationDeps;
}

/** Creates the destination. */
export function createCrmDestination(options: CrmDestinationOptions): CrmDestination {
  const { name, adapter, counters, deps } = options;
  const settings: SyncSettings = { ...options.settings, statusField: options.shape.jobChangeStatus };
  const definitions = createFieldDefinitions(adapter, deps.now);
  const store = createRecordIdStore(deps.database.db, name, deps.now);
  let templates: Promise<CrmTemplates> | undefined;
  const loaded = () => {
    const { recordId } = options.shape;
    const carried: CarriedIdField | undefined =
      recordId === undefined || options.carriedIdKey === undefined
        ? undefined
        : { column: recordId, key: options.carriedIdKey };
    templates ??= loadCrmTemplates(options.templates, carried);
    return templates;
  };
  /**
   * The deliveries' rows, read and mapped into one batch of records; `beside` a call in flight, from the next
   * turn of the event loop (the call goes out first).
   */
  const prepare = async (deliveries: readonly OutboxDelivery[], beside = false): Promise<MappedBatch> => {
    if (beside) await new Promise((resolve) => setImmediate(resolve));
    const both = await loaded();
    const { recordId } = options.shape;
    const ofJobs = deliveries.filter((delivery) => delivery.change === undefined);
    const changes = deliveries.flatMap((delivery) =>
      delivery.change === undefined ? [] : [delivery.change],
    );
    // Beside a call, the answer is taken as it comes, not after the rows.
    const pauseEvery = beside ? 20 : undefined;
    const jobRows = await crmRows(deps.database.db, both, ofJobs, recordId, pauseEvery);
    const changed = await changeRows(deps.database.db, both, changes, recordId, pauseEvery);
    let nextJob = 0;
    let nextChange = 0;
    const rows = deliveries.map((delivery, event) => ({
      event,
      ...(delivery.change === undefined ? jobRows[nextJob++]! : changed[nextChange++]!),
    }));
    return mapRecords(rows, settings.keys, options.shape);
  };
  const sync = (
    batch: MappedBatch,
    signal: AbortSignal,
    dryRun: boolean,
    ids: RecordIdStore = store,
    through: CrmAdapter = adapter,
  ) =>
    syncBatch({
      adapter: through,
      store: ids,
      batch,
      settings,
      definitions: (object) => definitions(object, signal),
      dryRun,
      signal,
    });
  const dryRun = async (deliveries: readonly OutboxDelivery[], signal: AbortSignal) => {
    const spent = adapter.tokens?.spent() ?? 0;
    const report = await sync(await prepare(deliveries), signal, true);
    if (adapter.tokens === undefined) return report;
    const writes = report.records.filter((r) => r.action === 'create' || r.action === 'update').length;
    return { ...report, tokens: adapter.tokens.spent() - spent + writes * adapter.tokens.perWrite };
  };
  const trouble = (error: unknown) => attemptResultOf(error, { name, crm: adapter.name, deps });
  const setup = options.setup;
  const { writeBatch } = adapter.limits;
  /**
   * The attempt in segments of one write call's worth of events, when it cannot reach the CRM's bulk line
   * (events that give one record of each object at most, no more of them than the line); else whole.
   */
  const segmentsOf = (deliveries: readonly OutboxDelivery[]): OutboxDelivery[][] => {
    const mayReachBulk =
      adapter.bulkCalls !== undefined &&
      (adapter.bulkCalls(deliveries.length) !== undefined ||
        !deliveries.every((delivery) => atMostOneRecordEach(delivery)));
    return mayReachBulk || deliveries.length <= writeBatch
      ? [[...deliveries]]
      : chunksOf(deliveries, writeBatch);
  };
  /**
   * Writes the deliveries segment after segment, one write call in flight, the next segment prepared
   * meanwhile (write-segments.ts). A segment's events end as its records came to; trouble that is not a
   * record's ends that segment's events and every later one's (none of their records was sent), while the
   * segments written before it stay delivered.
   */
  const deliverBatch = async (
    deliveries: readonly OutboxDelivery[],
    signal: AbortSignal,
    settled?: (results: readonly AttemptResult[]) => void,
  ) => {
    const segments = segmentsOf(deliveries);
    /** A written segment's events' results: as its records came to. */
    const resultsOf = (report: SyncReport, at: number): AttemptResult[] =>
      [...segments[at]!.keys()].map((index) => {
        const failed = report.failedEvents.get(index);
        return failed === undefined
          ? { outcome: 'delivered', status: 200 }
          : { outcome: 'fail', status: 400, error: failed };
      });
    if (segments.length > 1) {
      // Read while the first rows are (a sync reads the companies' always, the contacts' for any person).
      const objects: CrmObject[] = ['companies'];
      if (deliveries.some((delivery) => delivery.change !== undefined || delivery.kind !== 'company_reveal'))
        objects.push('contacts');
      for (const object of objects) definitions(object, signal).catch(() => undefined);
    }
    const { reports, error } = await writeSegments({
      segments,
      prepare,
      sync: (batch, through, ids, segmentSignal) => sync(batch, segmentSignal, false, ids, through),
      adapter,
      store,
      signal,
      // The lane records them while the later segments are written, not all after the last.
      written: settled === undefined ? undefined : (report, at) => settled(resultsOf(report, at)),
    });
    const results: AttemptResult[] = [];
    const records: RecordReport[] = [];
    reports.forEach((report, at) => {
      records.push(...report.records);
      results.push(...resultsOf(report, at));
    });
    if (error !== undefined) {
      await counters.flush(records);
      const result = await trouble(error);
      return [...results, ...deliveries.slice(results.length).map(() => result)];
    }
    await counters.flush(records);
    // One line per object and batch, each distinct warning with its count (not one line per record).
    for (const [object, warnings] of groupWarnings(records)) {
      const affected = records.filter((record) => record.object === object && record.warnings.length > 0);
      deps.logger.warn(
        { destination: name, object, records: affected.length, warnings },
        `values left out of ${affected.length} ${adapter.name} record(s) (not valid for their property)`,
      );
    }
    return results;
  };
  return {
    kind: 'outbox',
    template: undefined,
    normalized: true,
    rowsOnly: true,
    batchSize: adapter.limits.writeBatch,
    deliver: async (delivery, signal) => (await deliverBatch([delivery], signal))[0]!,
    deliverBatch,
    dryRun: (deliveries, signal) => dryRun(deliveries, signal).finally(() => counters.flush()),
    setupPortal:
      setup === undefined
        ? undefined
        : async ({ dryRun, signal }) =>
            setup({ templates: await loaded(), dryRun, signal }).finally(() => counters.flush()),
    async ping(signal) {
      try {
        const checked = await adapter.check(signal);
        return { outcome: 'delivered', status: 200, detail: checked };
      } catch (error) {
        // A check pauses nothing and defers nothing: it says what the CRM answered.
        if (error instanceof CrmError) return { outcome: 'fail', status: error.status, error: error.message };
        throw error;
      } finally {
        await counters.flush();
      }
    },
  };
}
