/**
 * The watches file (HOOKSYNC_WATCHES or `serve --watches FILE`), validated whole before anything runs, as
 * the destinations file is: a problem is one line naming the watch and the field. `map`, `set` and `carry`
 * are launch's (launch/build-request.ts makes and checks the plan, for a watch as for `hooksync launch`);
 * a relative date in `set` (`-30d`) is written down here and resolved at each cycle (watch-plan.ts).
 */
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { parseDuration } from '../config/parse-duration.js';
import { fieldPath, readJsonConfigFile } from '../config/read-config-file.js';
import { ConfigError } from '../errors.js';
import type { RequestPlanEntries } from '../launch/build-request.js';
import { OPERATIONS, type OperationSpec } from '../launch/launch-operations.js';
import { formatOfPath, INPUT_FORMATS, type InputFormat } from '../launch/read-rows.js';
import { planForCycle } from './watch-plan.js';

/** The least period of a watch: short enough for a test or a demo, never a busy loop. */
export const MIN_WATCH_EVERY_MS = 10_000;

/** The operations a watch can repeat: those whose answers can change (a reveal is bought once). */
export const WATCH_OPERATIONS = ['job-change', 'search'] as const;

/** A watch, validated. */
export interface WatchDefinition {
  readonly name: string;
  readonly operation: OperationSpec;
  /** The file re-read at each cycle (absolute), and its format. */
  readonly source: { readonly file: string; readonly format: InputFormat };
  /** map, set (relative dates as written) and carry, as launch's plan takes them. */
  readonly entries: RequestPlanEntries;
  /** Fields of `set` given as a relative date: field → days before the cycle's day. */
  readonly relativeDates: ReadonlyMap<string, number>;
  readonly everyMs: number;
  readonly maxUsdPerCycle: number | undefined;
  readonly reportBaseline: boolean;
}

const nameSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/i,
    'must be 1-63 letters, digits, "-" or "_", starting with a letter or digit',
  );

const everySchema = z.string().transform((text, ctx) => {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (error) {
    ctx.issues.push({ code: 'custom', input: text, message: (error as Error).message });
    return z.NEVER;
  }
  if (ms < MIN_WATCH_EVERY_MS) {
    ctx.issues.push({
      code: 'custom',
      input: text,
      message: `"${text}" is shorter than the least period, 10s`,
    });
    return z.NEVER;
  }
  return ms;
});

const watchSchema = z.strictObject({
  name: nameSchema,
  launch: z.enum(WATCH_OPERATIONS),
  from: z.union([
    z.strictObject({ file: z.string().min(1), format: z.enum(INPUT_FORMATS).optional() }),
    z.strictObject({
      hubspot: z.strictObject({
        destination: z.string().min(1),
        filter: z.record(z.string(), z.string()).optional(),
      }),
    }),
  ]),
  map: z.record(z.string(), z.string().min(1)).optional(),
  set: z.record(z.string(), z.unknown()).optional(),
  carry: z.record(z.string(), z.string().min(1)).optional(),
  every: everySchema,
  max_usd_per_cycle: z.number().positive().optional(),
  report_baseline: z.boolean().optional(),
});

const fileSchema = z.strictObject({ watches: z.array(z.looseObject({})) });

const RELATIVE_DATE = /^-(\d{1,5})d$/;

/**
 * Validates a parsed watches document. `baseDir` is where relative source paths start (the file's folder);
 * `label` names the document in messages; `nowMs` the day relative dates are checked against.
 */
export function parseWatches(
  document: unknown,
  options: { label: string; baseDir: string; nowMs: number },
): WatchDefinition[] {
  const { label } = options;
  const top = fileSchema.safeParse(document);
  if (!top.success) {
    const issue = top.error.issues[0]!;
    const field = fieldPath(issue.path);
    throw new ConfigError(`${label}: ${field === '' ? 'the file' : `field ${field}`} ${issue.message}`);
  }
  const seen = new Set<string>();
  const watches: WatchDefinition[] = [];
  for (const [index, entry] of top.data.watches.entries()) {
    const where = `${label}: watch ${typeof entry.name === 'string' ? `"${entry.name}"` : `#${index + 1}`}`;
    const parsed = watchSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(`${where}, field ${fieldPath(issue.path)}: ${issue.message}`);
    }
    const config = parsed.data;
    if (seen.has(config.name)) throw new ConfigError(`${where}, field name: used by another watch`);
    seen.add(config.name);
    if (!('file' in config.from)) {
      throw new ConfigError(
        `${where}, field from.hubspot: a HubSpot source is not available in this version; export the contacts to a file and use { "file": … }`,
      );
    }
    const relativeDates = new Map<string, number>();
    for (const [field, value] of Object.entries(config.set ?? {})) {
      const match = typeof value === 'string' ? RELATIVE_DATE.exec(value.trim()) : null;
      if (match !== null && /date/.test(field)) relativeDates.set(field, Number(match[1]));
    }
    const definition: WatchDefinition = {
      name: config.name,
      operation: OPERATIONS[config.launch],
      source: {
        file: resolve(options.baseDir, config.from.file),
        format: config.from.format ?? formatOfPath(config.from.file),
      },
      entries: {
        map: Object.entries(config.map ?? {}),
        set: Object.entries(config.set ?? {}),
        carry: Object.entries(config.carry ?? {}),
      },
      relativeDates,
      everyMs: config.every,
      maxUsdPerCycle: config.max_usd_per_cycle,
      reportBaseline: config.report_baseline ?? false,
    };
    try {
      // The plan is made as a cycle makes it: an unknown field, a value that cannot be typed, a bad key.
      planForCycle(definition, options.nowMs, undefined);
    } catch (error) {
      throw new ConfigError(`${where}, field ${(error as Error).message}`);
    }
    watches.push(definition);
  }
  return watches;
}

/** Reads and validates the watches file at `path`; throws ConfigError with one clear line. */
export function loadWatches(path: string, nowMs: number = Date.now()): WatchDefinition[] {
  const label = `watches file ${path}`;
  const document = readJsonConfigFile(path, label);
  return parseWatches(document, { label, baseDir: dirname(resolve(path)), nowMs });
}
