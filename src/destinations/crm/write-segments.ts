/**
 * An attempt written in segments (each one write call's worth of events), pipelined with one write call in
 * flight: while a segment's calls go, the next segment's rows are read and mapped, and its reads (fill-empty,
 * finding records) go too; its writes wait until the segment before it is through, so that writes never
 * overlap and go in segment order. The ids a segment found are recorded while the next one's calls go, and
 * each segment's report is handed on (`written`) as soon as it and the segments before it are through and
 * those ids are recorded.
 * Once a segment fails, no later segment writes anything: the segments before it are written, the others
 * not at all (acknowledge only what is committed).
 */
import type { CrmAdapter } from './crm-adapter.js';
import type { RecordIdStore } from './find-existing.js';
import type { MappedBatch } from './map-records.js';
import type { SyncReport } from './sync-batch.js';

/** What the segments came to: the reports of those written, in order, and the trouble that stopped the rest. */
export interface SegmentsReport {
  readonly reports: SyncReport[];
  /** Set when a segment failed: `reports` holds the segments before it. */
  readonly error?: unknown;
}

/** Whether two batches name a record in common (a company or a contact by its key). */
function shareRecords(before: MappedBatch, after: MappedBatch): boolean {
  const named = (batch: MappedBatch) => [
    ...batch.companies.map((record) => `companies ${record.key}`),
    ...batch.contacts.map((record) => `contacts ${record.key}`),
  ];
  const earlier = new Set(named(before));
  return named(after).some((name) => earlier.has(name));
}

/** Writes `segments` one after another, the next prepared (rows, mapping, reads) while one is written. */
export async function writeSegments<S>(options: {
  readonly segments: readonly S[];
  /** A segment's records, its rows read and mapped; `beside`: while another segment's calls are in flight. */
  readonly prepare: (segment: S, beside: boolean) => Promise<MappedBatch>;
  /** Writes a segment's records through `adapter` and `ids` (syncBatch). */
  readonly sync: (
    batch: MappedBatch,
    adapter: CrmAdapter,
    ids: RecordIdStore,
    signal: AbortSignal,
  ) => Promise<SyncReport>;
  readonly adapter: CrmAdapter;
  readonly store: RecordIdStore;
  readonly signal: AbortSignal;
  /**
   * Each written segment's report, in order, once it is through and the ids it found are recorded (the
   * result still holds them all).
   */
  readonly written?: ((report: SyncReport, index: number) => void) | undefined;
}): Promise<SegmentsReport> {
  const { segments, adapter, store } = options;
  if (segments.length === 1) {
    try {
      const batch = await options.prepare(segments[0]!, false);
      return { reports: [await options.sync(batch, adapter, store, options.signal)] };
    } catch (error) {
      return { reports: [], error };
    }
  }
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  const recording: Array<Promise<void>> = [];
  const ids: RecordIdStore = {
    lookUp: async (object, keys) => {
      await Promise.all(recording);
      return store.lookUp(object, keys);
    },
    record: async (object, found) => {
      const written = store.record(object, found);
      written.catch(() => undefined);
      recording.push(written);
    },
  };
  const reports: Array<Promise<SyncReport>> = [];
  const through = (index: number): Promise<void> =>
    index < 0
      ? Promise.resolve()
      : reports[index]!.then(
          () => undefined,
          () => undefined,
        );
  /** Segment `index`'s adapter: its writes wait for the segment before it, and go only while none failed. */
  const gated = (index: number): CrmAdapter => {
    const turn = async () => {
      await through(index - 1);
      signal.throwIfAborted();
    };
    const { link } = adapter;
    return {
      ...adapter,
      write: async (object, requests, callSignal) => {
        await turn();
        return adapter.write(object, requests, callSignal);
      },
      ...(link === undefined
        ? {}
        : {
            link: async (links, callSignal) => {
              await turn();
              return link.call(adapter, links, callSignal);
            },
          }),
    };
  };
  const batches: Array<Promise<MappedBatch>> = [];
  // A segment's sync starts once its rows are mapped and the segment two before it is through (so that one
  // segment writes while the next one reads), or the one before it when they name a record in common (its
  // reads then see that write: an employer revealed just before is found); the next segment's rows are
  // read from then on.
  const launch = (index: number): void => {
    const mapped = options.prepare(segments[index]!, index > 0);
    mapped.catch(() => undefined);
    batches[index] = mapped;
    const report = Promise.all([mapped, through(index - 2)]).then(async ([batch]) => {
      if (index > 0 && shareRecords(await batches[index - 1]!, batch)) await through(index - 1);
      signal.throwIfAborted();
      if (index + 1 < segments.length) launch(index + 1);
      return options.sync(batch, gated(index), ids, signal);
    });
    report.catch(() => undefined);
    reports[index] = report;
  };
  launch(0);
  const done: SyncReport[] = [];
  try {
    for (let index = 0; index < segments.length; index += 1) {
      done.push(await reports[index]!);
      if (options.written === undefined) continue;
      // The ids its records were written under are kept before its events are said written: a restart
      // (or a later event naming the same record) finds them by the map, never creates them again.
      await Promise.all(recording);
      options.written(done[index]!, index);
    }
    await Promise.all(recording);
    return { reports: done };
  } catch (error) {
    stop.abort(error);
    // The later segments end (each at its next step) before the attempt does.
    for (let seen = -1; seen !== reports.length; ) {
      seen = reports.length;
      await Promise.allSettled([...reports, ...recording]);
    }
    return { reports: done, error };
  }
}
