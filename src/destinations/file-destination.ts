/**
 * The `file` destination: on a cron schedule, an incremental export of a template into a directory, with
 * the `export --since-last` semantics (src/export/run-export.ts): the file is written atomically, the
 * destination's own cursor moves only after it is complete, one file per run with a timestamped name,
 * nothing written when nothing is new. A lease per destination keeps two replicas from running it at once.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Cron } from 'croner';
import { z } from 'zod';
import { loadTemplate } from '../export/load-template.js';
import { runExport } from '../export/run-export.js';
// The reconcile lease is a generic named lease (a row of `leases`); the file drop takes one of its own.
import { acquireLease, createLeaseHolderId, releaseLease } from '../storage/leases/acquire-lease.js';
import { DESTINATION_KINDS, destinationNameSchema, noSecrets } from './config-fields.js';
import {
  type DestinationDeps,
  defineDestinationType,
  type ScheduledDestination,
} from './destination-type.js';

/** How long one run may hold its lease: a run longer than this could overlap another replica's. */
export const FILE_RUN_LEASE_MS = 30 * 60_000;

const cronSchema = z.string().refine(
  (expression) => {
    try {
      new Cron(expression, { paused: true }).stop();
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be a cron expression, e.g. "30 3 * * *"' },
);

const fileSchema = z.strictObject({
  name: destinationNameSchema,
  type: z.literal('file'),
  template: z.string().min(1),
  directory: z.string().min(1),
  cron: cronSchema,
  /** Only rows from jobs of this kind (as `export --kind`). */
  kind: z.enum(DESTINATION_KINDS).optional(),
});

/** A `file` destination as configured. */
export type FileDestinationConfig = z.output<typeof fileSchema>;

/** The export cursor of a file destination: its own, apart from `export --since-last`'s. */
export function fileDestinationCursorKey(name: string): string {
  return `destination:${name}`;
}

/** `<name>-2026-11-24T03-30-00-000Z.csv`: sortable, and safe on every file system. */
function fileName(name: string, nowMs: number): string {
  return `${name}-${new Date(nowMs).toISOString().replaceAll(':', '-').replace('.', '-')}.csv`;
}

function createFileDestination(
  config: FileDestinationConfig,
  _secrets: readonly string[],
  deps: DestinationDeps,
): ScheduledDestination {
  const { db } = deps.database;
  const holder = createLeaseHolderId();
  const lease = `destination:${config.name}`;
  const runOnce = async (): Promise<string> => {
    const nowMs = deps.now();
    const taken = await acquireLease(db, { name: lease, holder, ttlMs: FILE_RUN_LEASE_MS, nowMs });
    if (!taken.acquired) return `skipped: another process (${taken.holder}) is running it`;
    try {
      const template = await loadTemplate(config.template);
      const directory = resolve(config.directory);
      await mkdir(directory, { recursive: true });
      const report = await runExport(db, template, {
        out: join(directory, fileName(config.name, nowMs)),
        sinceLast: true,
        cursorKey: fileDestinationCursorKey(config.name),
        skipEmpty: true,
        kind: config.kind,
        now: deps.now,
      });
      return report.out === undefined ? 'nothing new' : `${report.rows} rows written to ${report.out}`;
    } finally {
      await releaseLease(db, { name: lease, holder });
    }
  };
  return {
    kind: 'scheduled',
    runOnce,
    start() {
      let current: Promise<void> | undefined;
      const job = new Cron(config.cron, { protect: true }, () => {
        current = runOnce().then(
          (result) => deps.logger.info({ destination: config.name, result }, 'file destination run'),
          (error: unknown) =>
            deps.logger.warn(
              { destination: config.name, err: error },
              'file destination run failed; the next run exports the same rows',
            ),
        );
        return current;
      });
      return async () => {
        job.stop();
        await current;
      };
    },
  };
}

/** The `file` destination type. */
export const FILE_DESTINATION = defineDestinationType({
  type: 'file',
  resolveSecrets: noSecrets,
  schema: fileSchema,
  create: createFileDestination,
});
