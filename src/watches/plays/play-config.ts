/**
 * A watch's plays as the cycle uses them (the watches file's `plays`, validated by load-watches.ts): the
 * successor search (its `set` typed by launch's own plan code, for the search operation) and the CRM task
 * (its destination's tasks role, its templates). Also the templates' placeholders and their rendering.
 */

import { searchContactFieldShape } from '../../contract/search-contact-fields.js';
import type { CrmTasks } from '../../destinations/crm/crm-adapter.js';
import type { ContactReaderDeps } from '../../destinations/destination-type.js';
import type { ConfiguredDestination } from '../../destinations/load-destinations.js';
import { createRequestPlanFromEntries } from '../../launch/build-request.js';
import { OPERATIONS } from '../../launch/launch-operations.js';

/** The changes a play can follow: a job-change watch's. */
export const PLAY_CHANGES = ['moved', 'left', 'returned', 'title'] as const;
/** The departures a successor search follows. */
export const SUCCESSOR_CHANGES = ['left', 'moved'] as const;
/** Persons reported per departure by default, and at most. */
export const DEFAULT_MAX_PER_CHANGE = 3;
export const MAX_PER_CHANGE = 25;
/** The search fields the play sets itself: the company left, the page, the departed left out. */
export const SUCCESSOR_OWN_FIELDS = [
  'domain',
  'company_name',
  'company_linkedin',
  'contact_linkedin',
  'page_size',
  'page_number',
] as const;
/** What a task's subject and body may name. */
export const TASK_PLACEHOLDERS = [
  'name',
  'company',
  'title',
  'change',
  'previous_company',
  'watch',
  'email',
] as const;

/** One kind of change a play follows. */
export type PlayChange = (typeof PLAY_CHANGES)[number];

/** The successor play, validated. */
export interface SuccessorPlay {
  readonly on: readonly PlayChange[];
  /** The search fields of `set`, typed; undefined: the departed's seniority and department. */
  readonly set: ReadonlyMap<string, unknown> | undefined;
  readonly maxPerChange: number;
}

/** The task play, validated. */
export interface TaskPlay {
  readonly on: readonly PlayChange[];
  readonly destination: string;
  readonly subject: string;
  readonly body: string | undefined;
  readonly dueMs: number;
  /** The custom_fields key carrying the contact's id; undefined: the destination's own (`CrmTasks.idKey`). */
  readonly contactIdKey: string | undefined;
  /** The destination's tasks role, on its shared pace. */
  readonly tasks: (deps: ContactReaderDeps) => CrmTasks;
}

/** A watch's plays. */
export interface WatchPlays {
  readonly successor?: SuccessorPlay | undefined;
  readonly task?: TaskPlay | undefined;
}

const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** The first placeholder of `template` that is not one of {@link TASK_PLACEHOLDERS}, if any. */
export function unknownPlaceholder(template: string): string | undefined {
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (!(TASK_PLACEHOLDERS as readonly string[]).includes(match[1]!)) return match[1];
  }
  return undefined;
}

/** `template` with each placeholder replaced by its value (an unknown value: empty). */
export function renderTemplate(
  template: string,
  values: Readonly<Partial<Record<(typeof TASK_PLACEHOLDERS)[number], string | null>>>,
): string {
  return template
    .replace(PLACEHOLDER, (_, name: string) => values[name as keyof typeof values] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The successor play's `set`, typed as a search request's fields; throws Error naming the field. */
export function successorSet(
  set: Readonly<Record<string, unknown>> | undefined,
): ReadonlyMap<string, unknown> | undefined {
  if (set === undefined) return undefined;
  const own = Object.keys(set).find((field) => (SUCCESSOR_OWN_FIELDS as readonly string[]).includes(field));
  if (own !== undefined) {
    throw new Error(`field plays.successor.set.${own}: the play sets it itself (the company left, the page)`);
  }
  let typed: ReadonlyMap<string, unknown>;
  try {
    typed = createRequestPlanFromEntries(
      OPERATIONS.search,
      { set: Object.entries(set) },
      { map: 'map', set: 'plays.successor.set', carry: 'carry', pages: 'pages' },
    ).set;
  } catch (error) {
    throw new Error(`field ${(error as Error).message}`);
  }
  // Each value as the contract takes it (the seniority and department enums, the list limits).
  for (const [field, value] of typed) {
    const schema = searchContactFieldShape[field as keyof typeof searchContactFieldShape];
    const checked = schema?.safeParse(value);
    if (checked !== undefined && !checked.success) {
      const issue = checked.error.issues[0];
      const at = issue === undefined || issue.path.length === 0 ? '' : `[${issue.path.join('][')}]`;
      throw new Error(`field plays.successor.set.${field}${at}: ${issue?.message ?? 'invalid'}`);
    }
  }
  return typed;
}

/** The destination a task play names, checked: it exists and its CRM has a tasks role. */
export function taskDestination(
  destination: string,
  destinations: readonly ConfiguredDestination[] | undefined,
): (deps: ContactReaderDeps) => CrmTasks {
  const field = 'field plays.task.destination';
  if (destinations === undefined) {
    throw new Error(
      `${field}: a task goes to a CRM destination: give the destinations file (HOOKSYNC_DESTINATIONS or --destinations)`,
    );
  }
  const found = destinations.find((entry) => entry.name === destination);
  if (found === undefined) {
    const names = destinations.map((entry) => entry.name).join(', ') || 'none';
    throw new Error(
      `${field}: no destination "${destination}" in the destinations file (destinations: ${names})`,
    );
  }
  if (found.crmTasks === undefined) {
    throw new Error(`${field}: destination "${destination}" is of type ${found.type}, which has no tasks`);
  }
  return found.crmTasks;
}
