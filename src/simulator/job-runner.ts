/**
 * A job's life in the simulator: charge the account, build the envelope (input.task = request echo +
 * job_id + context_id; output + usage), serialise it once, store it, and hand it to webhook delivery when
 * it finishes. With `asyncMs` the launcher answers RUNNING and the job finishes that many ms later.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { JobStatus } from '../contract/enums.js';
import { stringifyJson } from '../contract/json.js';
import type { AccountBalance } from './account-balance.js';
import type { ActivityTracker } from './activity-tracker.js';
import { buildUsage, priceCharge, type UsageCounts } from './price-table.js';
import { formatServiceDate } from './service-date.js';
import type { SimJobKind, SimJobStore, StoredJob } from './sim-job-store.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';

/** A validated launch: what to echo, what the job found, and what to charge for. */
export interface JobLaunch {
  readonly kind: SimJobKind;
  /** The validated request (webhook_url and custom_fields already normalised by the contract parser). */
  readonly request: Readonly<Record<string, unknown>>;
  /** The request fields the task echoes, when the interface lists fewer than the request has (default all). */
  readonly echo?: Readonly<Record<string, unknown>>;
  /** The operation's output, without usage (added here). */
  readonly output: Readonly<Record<string, unknown>>;
  readonly counts: UsageCounts;
}

/** What {@link JobRunner} needs. */
export interface JobRunnerDeps {
  readonly store: SimJobStore;
  readonly balance: AccountBalance;
  readonly dispatcher: WebhookDispatcher;
  readonly activity: ActivityTracker;
  readonly now: () => number;
  readonly logger: Logger;
}

function envelopeText(
  status: JobStatus,
  startDate: string,
  stopDate: string | undefined,
  task: object,
  output: object | undefined,
): string {
  // Member order as in the interface's Job envelope table; absent members are left out, not null.
  return stringifyJson({
    status,
    start_date: startDate,
    ...(stopDate === undefined ? {} : { stop_date: stopDate }),
    input: { task },
    ...(output === undefined ? {} : { output }),
  });
}

/** Launches jobs and finishes the asynchronous ones. */
export class JobRunner {
  readonly #deps: JobRunnerDeps;
  readonly #asyncMs: number;
  readonly #closing = new AbortController();

  /** `asyncMs`: 0 for synchronous launchers (the interface's behaviour), else the delay before finishing. */
  constructor(deps: JobRunnerDeps, asyncMs: number) {
    this.#deps = deps;
    this.#asyncMs = asyncMs;
  }

  /**
   * Runs a launch and returns the text the launcher answers. Throws ServiceError QUOTA_ACCOUNT_OVER_QUOTA
   * (nothing stored, nothing charged) when the balance does not cover the job.
   */
  launch(launch: JobLaunch): string {
    const { store, balance, now } = this.#deps;
    const charge = priceCharge(launch.counts);
    const balanceLeftMicros = balance.take(charge);
    const task = { ...(launch.echo ?? launch.request), job_id: randomUUID(), context_id: randomUUID() };
    const output = { ...launch.output, usage: buildUsage(charge, balanceLeftMicros) };
    const startDate = formatServiceDate(now());
    const webhookUrl =
      typeof launch.request.webhook_url === 'string' ? launch.request.webhook_url : undefined;
    const base = { job_id: task.job_id, kind: launch.kind };

    // Company Reveal is synchronous always (Company Reveal Launcher: "no polling is needed").
    if (this.#asyncMs <= 0 || launch.kind === 'company_reveal') {
      const text = envelopeText('SUCCEEDED', startDate, formatServiceDate(now()), task, output);
      this.#finish({ ...base, status: 'SUCCEEDED', text }, webhookUrl);
      return text;
    }
    const running: StoredJob = {
      ...base,
      status: 'RUNNING',
      text: envelopeText('RUNNING', startDate, undefined, task, undefined),
    };
    // The finished text is kept beside the RUNNING one so that a restart (--db) can finish the job.
    const provisional = envelopeText('SUCCEEDED', startDate, startDate, task, output);
    store.put(running, provisional);
    const end = this.#deps.activity.begin();
    sleep(this.#asyncMs, undefined, { signal: this.#closing.signal })
      .then(
        () => {
          const text = envelopeText('SUCCEEDED', startDate, formatServiceDate(now()), task, output);
          this.#finish({ ...base, status: 'SUCCEEDED', text }, webhookUrl);
        },
        () => undefined, // the simulator is closing: the job is abandoned
      )
      .catch((error: unknown) =>
        this.#deps.logger.error({ err: error, job_id: task.job_id }, 'job failed to finish'),
      )
      .finally(end);
    return running.text;
  }

  #finish(job: StoredJob, webhookUrl: string | undefined): void {
    this.#deps.store.put(job);
    this.#deps.logger.debug({ job_id: job.job_id, kind: job.kind }, 'job finished');
    if (webhookUrl !== undefined)
      this.#deps.dispatcher.dispatch({ jobId: job.job_id, url: webhookUrl, body: job.text });
  }

  /** Finishes the RUNNING jobs read back from the job log (their callbacks are not sent again). */
  finishRestored(): void {
    for (const { job, finalText } of this.#deps.store.takeUnfinished()) {
      this.#deps.store.put({ ...job, status: 'SUCCEEDED', text: finalText });
    }
  }

  /** Abandons the jobs still running (the simulator is closing). */
  close(): void {
    this.#closing.abort(new Error('simulator closed'));
  }
}
