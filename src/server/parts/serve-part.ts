/**
 * The shape of `serve`'s parts. Each long-running part is started by a module of its own, which returns
 * what it offers and its `close`; the composition root (start-receiver.ts) starts them in order on a
 * {@link PartStack}, which closes them last first, on shutdown or when a later part fails to start.
 */
import type { Logger } from 'pino';
import type { AnswerLimits } from '../../client/answer-budget.js';
import type { Client } from '../../client/create-client.js';
import type { HooksyncConfig } from '../../config/load-config.js';
import type { ReceiverMetrics } from '../../receiver/create-metrics.js';
import type { JobStore } from '../../storage/job-store/job-store.js';
import type { HooksyncDatabase } from '../../storage/open-database.js';
import type { StartReceiverOptions } from '../start-receiver-options.js';
import type { JobsStoredSignal } from './jobs-stored-signal.js';

/** Something started that must be closed: a timer, a schedule, a connection, a server. */
export interface Closable {
  close(): Promise<void> | void;
}

/**
 * What a part of serve beside receiving is started with: the shared collaborators and the parts every
 * such part may use (the store and the database, the service's client, the metrics).
 */
export interface ServeContext {
  readonly config: HooksyncConfig;
  readonly options: StartReceiverOptions;
  readonly logger: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  readonly database: HooksyncDatabase;
  readonly metrics: ReceiverMetrics;
  readonly store: JobStore;
  /** The service's client, when an account is configured (config/check-serve-config.ts). */
  readonly client: Client | undefined;
  /** The one answer budget (the client's too) and the plan's cap on one CRM or source answer. */
  readonly answers: AnswerLimits;
  /** Deliveries being received right now: work beside receiving yields to them. */
  readonly receiving: () => number;
  /** Told when the store committed jobs (their outbox events are due): the dispatcher listens. */
  readonly jobsStored: JobsStoredSignal;
}

/**
 * A long-running part of serve beside receiving (the dispatcher, reconcile's schedule, ...): started
 * before the receiver listens, closed after it has stopped. A part that is off for this config returns
 * a no-op close.
 */
export type ServePart = (context: ServeContext) => Promise<Closable>;

/** Parts started so far, closed in reverse order. */
export interface PartStack {
  /** Keeps `part` to be closed with the stack; returns it. */
  add<T extends Closable>(part: T): T;
  /** Closes every part added, last first; once (later calls return the same promise). */
  close(): Promise<void>;
}

/** An empty stack. */
export function createPartStack(): PartStack {
  const parts: Closable[] = [];
  let closing: Promise<void> | undefined;
  return {
    add(part) {
      if (closing !== undefined) throw new TypeError('the part stack is already closed');
      parts.push(part);
      return part;
    },
    close() {
      closing ??= (async () => {
        for (const part of parts.reverse()) await part.close();
      })();
      return closing;
    },
  };
}

/** A part that holds nothing. */
export const NOTHING_TO_CLOSE: Closable = Object.freeze({ close() {} });
