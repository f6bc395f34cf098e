/**
 * The watches file (HOOKSYNC_WATCHES or `serve --watches FILE`), validated whole before anything runs, as
 * the destinations file is: a problem is one line naming the watch and the field. `map`, `set` and `carry`
 * are launch's (launch/build-request.ts makes and checks the plan, for a watch as for `hooksync launch`);
 * a relative date in `set` (`-30d`) is written down here and resolved at each cycle (watch-plan.ts). A CRM
 * source (`from.<type>`) is the watch source role of a destination type (its schema, its field names and its
 * reader live in the CRM's folder), loaded from the registry when the file names it; it names a destination
 * of the destinations file, checked here (sources/crm-source.ts).
 */
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { parseDuration } from '../config/parse-duration.js';
import { fieldPath, readJsonConfigFile } from '../config/read-config-file.js';
import type { WatchSourceType } from '../destinations/destination-type.js';
import { DESTINATION_TYPES, loadDestinationType } from '../destinations/destination-types.js';
import type { ConfiguredDestination } from '../destinations/load-destinations.js';
import { ConfigError } from '../errors.js';
import type { RequestPlanEntries } from '../launch/build-request.js';
import { OPERATIONS, type OperationSpec } from '../launch/launch-operations.js';
import { formatOfPath, INPUT_FORMATS, type InputFormat } from '../launch/read-rows.js';
import {
  DEFAULT_MAX_PER_CHANGE,
  MAX_PER_CHANGE,
  PLAY_CHANGES,
  SUCCESSOR_CHANGES,
  successorSet,
  taskDestination,
  unknownPlaceholder,
  type WatchPlays,
} from './plays/play-config.js';
import { type CrmSource, crmEntries, crmReaderFor, fieldsRead } from './sources/crm-source.js';
import { planForCycle } from './watch-plan.js';

/** The least period of a watch: short enough for a test or a demo, never a busy loop. */
export const MIN_WATCH_EVERY_MS = 10_000;

/** The operations a watch can repeat: those whose answers can change (a reveal is bought once). */
export const WATCH_OPERATIONS = ['job-change', 'search'] as const;

/** A file re-read at each cycle (absolute), and its format. */
export interface FileSource {
  readonly kind: 'file';
  readonly file: string;
  readonly format: InputFormat;
}

/** Where a watch's rows come from at each pass. */
export type WatchSource = FileSource | CrmSource;

/** A watch, validated. */
export interface WatchDefinition {
  readonly name: string;
  readonly operation: OperationSpec;
  /** The file, or the CRM's contacts, re-read at each pass of a cycle. */
  readonly source: WatchSource;
  /** map, set (relative dates as written) and carry, as launch's plan takes them. */
  readonly entries: RequestPlanEntries;
  /** Fields of `set` given as a relative date: field → days before the cycle's day. */
  readonly relativeDates: ReadonlyMap<string, number>;
  readonly everyMs: number;
  readonly maxUsdPerCycle: number | undefined;
  readonly reportBaseline: boolean;
  /** What a change starts on its own (docs/watches.md, Plays): a successor search, a CRM task. */
  readonly plays: WatchPlays;
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

/** The sources a watch's `from` may name: a file, or the CRM types of `sources`; exactly one. */
function fromSchemaOf(sources: ReadonlyMap<string, WatchSourceType>) {
  const kinds = ['file', ...sources.keys()];
  return z
    .strictObject({
      file: z.string().min(1).optional(),
      format: z.enum(INPUT_FORMATS).optional(),
      ...Object.fromEntries([...sources].map(([type, role]) => [type, role.schema.optional()])),
    })
    .superRefine((from, ctx) => {
      const named = kinds.filter((kind) => (from as Record<string, unknown>)[kind] !== undefined);
      if (named.length !== 1) {
        ctx.issues.push({
          code: 'custom',
          input: from,
          message: `must name one source: ${kinds.join(', ')}${named.length > 1 ? ` (got ${named.join(' and ')})` : ''}`,
        });
      } else if (from.format !== undefined && from.file === undefined) {
        ctx.issues.push({ code: 'custom', input: from, path: ['format'], message: 'applies to a file only' });
      }
    });
}

const templateSchema = z
  .string()
  .trim()
  .min(1)
  .max(2000)
  .superRefine((text, ctx) => {
    const unknown = unknownPlaceholder(text);
    if (unknown !== undefined) {
      ctx.issues.push({
        code: 'custom',
        input: text,
        message: `{{${unknown}}} is not a placeholder (name, company, title, change, previous_company, watch, email)`,
      });
    }
  });

const durationSchema = z.string().transform((text, ctx) => {
  try {
    return parseDuration(text);
  } catch (error) {
    ctx.issues.push({ code: 'custom', input: text, message: (error as Error).message });
    return z.NEVER;
  }
});

/** A watch's plays: what a change starts on its own (src/watches/plays/). */
export const playsSchema = z.strictObject({
  successor: z
    .strictObject({
      on: z
        .array(z.enum(SUCCESSOR_CHANGES))
        .min(1)
        .default([...SUCCESSOR_CHANGES]),
      set: z.record(z.string(), z.unknown()).optional(),
      max_per_change: z.int().min(1).max(MAX_PER_CHANGE).default(DEFAULT_MAX_PER_CHANGE),
    })
    .optional(),
  task: z
    .strictObject({
      destination: z.string().min(1),
      on: z.array(z.enum(PLAY_CHANGES)).min(1),
      subject: templateSchema.refine((text) => text.length <= 255, 'must be at most 255 characters'),
      body: templateSchema.optional(),
      due: durationSchema.default(3 * 86_400_000),
      contact_id: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a custom_fields key (letters, digits, _ and -)')
        .optional(),
    })
    .optional(),
});

/**
 * One watch of the file, as written, with the CRM sources of `sources` (its JSON Schema is generated from
 * it with every source type: watches-json-schema.ts).
 */
export function watchSchemaOf(sources: ReadonlyMap<string, WatchSourceType>) {
  return z.strictObject({
    name: nameSchema,
    launch: z.enum(WATCH_OPERATIONS),
    from: fromSchemaOf(sources),
    map: z.record(z.string(), z.string().min(1)).optional(),
    set: z.record(z.string(), z.unknown()).optional(),
    carry: z.record(z.string(), z.string().min(1)).optional(),
    every: everySchema,
    max_usd_per_cycle: z.number().positive().optional(),
    report_baseline: z.boolean().optional(),
    plays: playsSchema.optional(),
  });
}

/** The watch source roles of the destination types `names` (every type when undefined), loaded. */
export async function watchSourceTypes(names?: Iterable<string>): Promise<Map<string, WatchSourceType>> {
  const sources = new Map<string, WatchSourceType>();
  for (const name of names ?? Object.keys(DESTINATION_TYPES)) {
    const role = (await loadDestinationType(name))?.watchSource;
    if (role !== undefined) sources.set(name, role);
  }
  return sources;
}

/**
 * The source types a file's watches name (`from.<type>`), loaded; every one when a watch names none or
 * several, whose message lists them all.
 */
function namedSourceTypes(
  watches: ReadonlyArray<Record<string, unknown>>,
): Promise<Map<string, WatchSourceType>> {
  const named = new Set<string>();
  for (const watch of watches) {
    const from = watch.from;
    const keys =
      from !== null && typeof from === 'object' ? Object.keys(from).filter((key) => key !== 'format') : [];
    if (keys.length !== 1) return watchSourceTypes();
    if (keys[0] !== 'file') named.add(keys[0]!);
  }
  return watchSourceTypes(named);
}

/** The whole file: its watches, and a `$schema` an editor reads and hooksync ignores. */
const fileSchema = z.strictObject({ $schema: z.string().optional(), watches: z.array(z.looseObject({})) });

const RELATIVE_DATE = /^-(\d{1,5})d$/;

/**
 * Validates a parsed watches document. `baseDir` is where relative source paths start (the file's folder);
 * `label` names the document in messages; `nowMs` the day relative dates are checked against.
 */
export async function parseWatches(
  document: unknown,
  options: {
    label: string;
    baseDir: string;
    nowMs: number;
    /** The destinations file's destinations, which a CRM source names; undefined when none was given. */
    destinations?: readonly ConfiguredDestination[] | undefined;
  },
): Promise<WatchDefinition[]> {
  const { label } = options;
  const top = fileSchema.safeParse(document);
  if (!top.success) {
    const issue = top.error.issues[0]!;
    const field = fieldPath(issue.path);
    throw new ConfigError(`${label}: ${field === '' ? 'the file' : `field ${field}`} ${issue.message}`);
  }
  const sources = await namedSourceTypes(top.data.watches);
  const watchSchema = watchSchemaOf(sources);
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
    const relativeDates = new Map<string, number>();
    for (const [field, value] of Object.entries(config.set ?? {})) {
      const match = typeof value === 'string' ? RELATIVE_DATE.exec(value.trim()) : null;
      if (match !== null && /date/.test(field)) relativeDates.set(field, Number(match[1]));
    }
    const own = {
      map: Object.entries(config.map ?? {}),
      set: Object.entries(config.set ?? {}),
      carry: Object.entries(config.carry ?? {}),
    };
    let source: WatchSource;
    let entries: RequestPlanEntries = own;
    const { file } = config.from;
    if (file !== undefined) {
      source = {
        kind: 'file',
        file: resolve(options.baseDir, file),
        format: config.from.format ?? formatOfPath(file),
      };
    } else {
      // The one CRM type named (the schema checked that one source is named).
      const [type, role] = [...sources].find(([name]) => Object.hasOwn(config.from, name))!;
      // The object as written: the configured reader parses it again into its CRM's own query type.
      const chosen = (entry.from as Record<string, unknown>)[type];
      const { destination } = role.schema.parse(chosen);
      try {
        if (config.launch !== 'job-change') {
          throw new Error(`field from.${type}: a CRM source reads contacts, for "launch": "job-change" only`);
        }
        const reader = crmReaderFor(type, role, destination, options.destinations);
        entries = crmEntries(reader, own);
        const fields = fieldsRead(reader, entries);
        for (const [part, pairs] of [
          ['map', own.map],
          ['carry', own.carry],
        ] as const) {
          const bad = pairs.find(([, column]) => fields.includes(column) && !role.fieldName.test(column));
          if (bad !== undefined) {
            throw new Error(`field ${part}.${bad[0]}: "${bad[1]}" is not a ${role.fieldNoun} name`);
          }
        }
        source = {
          kind: 'crm',
          type,
          crm: role.crm,
          destination,
          reader,
          contacts: reader.select(chosen, fields),
        };
      } catch (error) {
        throw new ConfigError(`${where}, ${(error as Error).message}`);
      }
    }
    let plays: WatchPlays = {};
    if (config.plays !== undefined) {
      const { successor, task } = config.plays;
      try {
        if (config.launch !== 'job-change' && (successor !== undefined || task !== undefined)) {
          throw new Error('field plays: plays follow the changes of a "launch": "job-change" watch');
        }
        plays = {
          successor:
            successor === undefined
              ? undefined
              : {
                  on: successor.on,
                  set: successorSet(successor.set),
                  maxPerChange: successor.max_per_change,
                },
          task:
            task === undefined
              ? undefined
              : {
                  on: task.on,
                  destination: task.destination,
                  subject: task.subject,
                  body: task.body,
                  dueMs: task.due,
                  contactIdKey: task.contact_id,
                  tasks: taskDestination(task.destination, options.destinations),
                },
        };
      } catch (error) {
        throw new ConfigError(`${where}, ${(error as Error).message}`);
      }
    }
    const definition: WatchDefinition = {
      name: config.name,
      operation: OPERATIONS[config.launch],
      source,
      entries,
      relativeDates,
      everyMs: config.every,
      maxUsdPerCycle: config.max_usd_per_cycle,
      reportBaseline: config.report_baseline ?? false,
      plays,
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

/**
 * Reads and validates the watches file at `path`; throws ConfigError with one clear line. `destinations`:
 * the destinations file's, which CRM sources name (undefined when no destinations file was given).
 */
export function loadWatches(
  path: string,
  options: { nowMs?: number; destinations?: readonly ConfiguredDestination[] | undefined } = {},
): Promise<WatchDefinition[]> {
  const label = `watches file ${path}`;
  const document = readJsonConfigFile(path, label);
  return parseWatches(document, {
    label,
    baseDir: dirname(resolve(path)),
    nowMs: options.nowMs ?? Date.now(),
    destinations: options.destinations,
  });
}
