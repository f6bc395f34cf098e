/**
 * The task play carried out: for each change it started (plays/play-store.ts), one follow-up task in the
 * named CRM destination for the contact's owner, associated with the contact, due `due` after the change,
 * through the CRM adapter's tasks role (crm-adapter.ts `CrmTasks`). Exactly once: the play is claimed
 * before the call and its task id recorded after; an attempt after one whose answer was lost (an error,
 * a kill -9 while claimed) looks for the task by its marker before it creates one. CRM trouble that may
 * pass is tried again later (backoff); a refusal (no owner, no such contact) fails the play with why.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AnswerLimits } from '../../client/answer-budget.js';
import { parseJsonText } from '../../contract/json.js';
import type { CrmTasks, TaskRequest } from '../../destinations/crm/crm-adapter.js';
import { CrmError } from '../../errors.js';
import type { Database } from '../../storage/database.js';
import { loadEnvelopeText } from '../../storage/envelope-codec.js';
import type { WatchDefinition } from '../load-watches.js';
import type { WatchChange } from '../watch-store.js';
import { renderTemplate, type TaskPlay } from './play-config.js';
import { duePlays, movePlay } from './play-store.js';
import { type Departure, departureOf } from './successor-search.js';

/** Due plays read at once. */
const BATCH = 20;
/** Attempts before a task play fails for good. */
export const MAX_TASK_ATTEMPTS = 8;
/** The first wait after trouble that may pass; doubled per attempt, at most an hour. */
const FIRST_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 3_600_000;

/** What the task plays need. */
export interface TaskContext {
  readonly watch: WatchDefinition;
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  readonly now: () => number;
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** serve's answer budget and the memory plan's cap on one answer, for the CRM's answers as the destinations'. */
  readonly answers?: AnswerLimits | undefined;
}

/** Each play's tasks role, built once for the answer limits it reads under (serve's are one object). */
const roles = new WeakMap<
  TaskPlay,
  { readonly answers: AnswerLimits | undefined; readonly role: CrmTasks }
>();

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The marker a task's body ends with: names the watch and the change, found again by it. */
export function taskMarker(watch: string, changeId: number | string): string {
  return `[hooksync ${watch} change ${changeId}]`;
}

function objectOf(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** What the task says of `change`: the template's values and the sentence of what changed. */
export function taskValues(
  watch: string,
  change: WatchChange,
  departure: Departure,
): { values: Record<string, string | null>; what: string } {
  const after = objectOf(change.after);
  const before = objectOf(change.before);
  const previous = textOf(before.company_name) ?? textOf(before.company_domain);
  const current = textOf(after.company_name) ?? textOf(after.company_domain);
  const title = textOf(after.title);
  const name = departure.name ?? departure.email ?? 'The contact';
  const company = change.change === 'left' ? previous : current;
  const values = {
    name,
    company,
    title,
    change: change.change,
    previous_company: previous,
    watch,
    email: departure.email,
  };
  const where = (at: string | null) => (at === null ? 'a new company' : at);
  const what =
    change.change === 'moved'
      ? `${name} moved${previous === null ? '' : ` from ${previous}`} to ${where(current)}${title === null ? '' : ` as ${title}`}.`
      : change.change === 'left'
        ? `${name} left ${previous ?? 'their company'} and has no current role.`
        : change.change === 'returned'
          ? `${name} is back at ${where(current)}.`
          : `${name} is now ${title ?? 'in a new role'}${current === null ? '' : ` at ${current}`}.`;
  return { values, what };
}

/** The task for `change` (its contact and owner known). */
export function taskRequest(
  watch: string,
  play: TaskPlay,
  change: WatchChange,
  departure: Departure,
  ids: { contactId: string; ownerId: string },
): TaskRequest {
  const { values, what } = taskValues(watch, change, departure);
  const marker = taskMarker(watch, change.id);
  const lead = play.body === undefined ? '' : `${renderTemplate(play.body, values)}\n\n`;
  return {
    ...ids,
    subject: renderTemplate(play.subject, values).slice(0, 255),
    body: `${lead}${what}\nDetected ${change.detected_at.slice(0, 10)} by the hooksync watch "${watch}".\n${marker}`,
    dueAtMs: Date.parse(change.detected_at) + play.dueMs,
    marker,
  };
}

function backoffMs(attempts: number, error: unknown): number {
  const own = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1));
  if (error instanceof CrmError && error.trouble.kind === 'wait') return Math.max(own, error.trouble.waitMs);
  return own;
}

/**
 * Plays claimed by a run that is gone (a kill -9 between claim and record): pending again, to be looked
 * for before created. Called when a process takes up the watch (it holds the watch's lease).
 */
export async function reclaimTaskPlays(db: Kysely<Database>, watch: string, nowIso: string): Promise<void> {
  await db
    .updateTable('watch_plays')
    .set({ state: 'pending', updated_at: nowIso })
    .where('watch', '=', watch)
    .where('play', '=', 'task')
    .where('state', '=', 'claimed')
    .execute();
}

/** Carries out the due task plays of the watch (at most `limit`); returns how many tasks were recorded. */
export async function runTaskPlays(ctx: TaskContext, signal: AbortSignal, limit = BATCH): Promise<number> {
  const { watch, db, logger } = ctx;
  const play = watch.plays.task;
  if (play === undefined) return 0;
  const nowIso = (): string => new Date(ctx.now()).toISOString();
  let role = roles.get(play)?.answers === ctx.answers ? roles.get(play)?.role : undefined;
  let done = 0;
  for (const due of await duePlays(db, watch.name, 'task', nowIso(), limit)) {
    if (signal.aborted) break;
    role ??= play.tasks({ db, now: ctx.now, fetch: ctx.fetch ?? globalThis.fetch, answers: ctx.answers });
    roles.set(play, { answers: ctx.answers, role });
    const idKey = play.contactIdKey ?? role.idKey;
    const carried = objectOf(due.change.custom_fields)[idKey];
    const contactId = typeof carried === 'number' ? String(carried) : textOf(carried);
    const fail = async (detail: string, from = 'pending') => {
      await movePlay(db, due.play.id, from, 'failed', { detail: detail.slice(0, 500), updated_at: nowIso() });
      logger.warn({ watch: watch.name, change_id: due.change.id, reason: detail }, 'task not created');
    };
    if (contactId === null) {
      await fail(`the change carries no contact id (custom_fields.${idKey})`);
      continue;
    }
    const attempts = due.play.attempts + 1;
    if (!(await movePlay(db, due.play.id, 'pending', 'claimed', { attempts, updated_at: nowIso() })))
      continue;
    try {
      const envelope = await loadEnvelopeText(db, due.change.job_id);
      const departure = departureOf(due.change, envelope === undefined ? undefined : parseJsonText(envelope));
      const ownerId = await role.ownerOf(contactId, signal);
      if (ownerId === undefined) {
        await fail(`contact ${contactId} has no owner`, 'claimed');
        continue;
      }
      const task = taskRequest(watch.name, play, due.change, departure, { contactId, ownerId });
      // An earlier attempt may have made it and lost the answer: look before creating (no idempotency key).
      const found = attempts > 1 ? await role.find(task, signal) : undefined;
      const taskId = found ?? (await role.create(task, signal));
      await movePlay(db, due.play.id, 'claimed', 'done', {
        task_id: taskId,
        detail: `for owner ${ownerId}, due ${new Date(task.dueAtMs).toISOString().slice(0, 10)}`,
        updated_at: nowIso(),
      });
      done += 1;
      logger.info(
        {
          watch: watch.name,
          change_id: due.change.id,
          destination: play.destination,
          task_id: taskId,
          found: found !== undefined,
        },
        'watch task created',
      );
    } catch (error) {
      const permanent = error instanceof CrmError && error.trouble.kind === 'fail';
      if (permanent || attempts >= MAX_TASK_ATTEMPTS) {
        await fail(`${play.destination}: ${describe(error)}`, 'claimed');
        continue;
      }
      await movePlay(db, due.play.id, 'claimed', 'pending', {
        detail: describe(error).slice(0, 500),
        next_attempt_at: new Date(ctx.now() + backoffMs(attempts, error)).toISOString(),
        updated_at: nowIso(),
      });
      logger.warn(
        { watch: watch.name, change_id: due.change.id, destination: play.destination, err: describe(error) },
        'task not created yet; trying again later',
      );
    }
  }
  return done;
}
