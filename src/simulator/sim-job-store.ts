/**
 * Every job the simulator launched, kept as the exact text the launcher answered (serialised once), so
 * that the finders return it byte for byte (Search Contact Finder: "the same envelope as the launcher
 * returned"). Optionally appended to a JSON-lines file and read back at start, to survive restarts.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { JobStatus } from '../contract/enums.js';

/** The kinds of job the simulator launches. */
export type SimJobKind = 'company_reveal' | 'job_change' | 'search_contact';

/** A stored job: its identity and the envelope text the finders answer with. */
export interface StoredJob {
  readonly job_id: string;
  readonly kind: SimJobKind;
  readonly status: JobStatus;
  /** The envelope exactly as served. */
  readonly text: string;
}

/** What GET /_sim/jobs lists for each job. */
export interface SimJobSummary {
  readonly job_id: string;
  readonly kind: SimJobKind;
  readonly status: JobStatus;
}

/** One line of the log file: a job's latest version, with the finished text when it still runs. */
interface LogLine extends StoredJob {
  readonly final?: string;
}

/** A RUNNING job read back from the log whose finished text was already computed. */
export interface UnfinishedJob {
  readonly job: StoredJob;
  readonly finalText: string;
}

const KINDS: ReadonlySet<string> = new Set(['company_reveal', 'job_change', 'search_contact']);

function isLogLine(value: unknown): value is LogLine {
  const line = value as Partial<LogLine> | null;
  return (
    typeof line?.job_id === 'string' &&
    typeof line.kind === 'string' &&
    KINDS.has(line.kind) &&
    typeof line.status === 'string' &&
    typeof line.text === 'string' &&
    (line.final === undefined || typeof line.final === 'string')
  );
}

/** The simulator's jobs, in launch order. */
export class SimJobStore {
  readonly #jobs = new Map<string, StoredJob>();
  readonly #file: string | undefined;
  readonly #unfinished: UnfinishedJob[] = [];

  /** Reads `file` when it exists (a torn last line is skipped with a warning). */
  constructor(options: { file?: string | undefined; logger?: Logger | undefined } = {}) {
    this.#file = options.file;
    if (this.#file === undefined || !existsSync(this.#file)) return;
    const lines = readFileSync(this.#file, 'utf8').split('\n');
    const finals = new Map<string, string>();
    lines.forEach((text, index) => {
      if (text.trim() === '') return;
      let line: unknown;
      try {
        line = JSON.parse(text);
      } catch {
        line = undefined;
      }
      if (!isLogLine(line)) {
        options.logger?.warn({ file: this.#file, line: index + 1 }, 'skipping an unreadable job log line');
        return;
      }
      const { final, ...job } = line;
      this.#jobs.set(job.job_id, job);
      if (final === undefined) finals.delete(job.job_id);
      else finals.set(job.job_id, final);
    });
    for (const [jobId, finalText] of finals) {
      const job = this.#jobs.get(jobId);
      if (job?.status === 'RUNNING') this.#unfinished.push({ job, finalText });
    }
  }

  /** Stores a job (replacing an earlier version); `finalText` goes with a RUNNING job into the log. */
  put(job: StoredJob, finalText?: string): void {
    this.#jobs.set(job.job_id, job);
    if (this.#file !== undefined) {
      const line: LogLine = finalText === undefined ? job : { ...job, final: finalText };
      appendFileSync(this.#file, `${JSON.stringify(line)}\n`);
    }
  }

  /** The job `jobId`, or undefined. */
  get(jobId: string): StoredJob | undefined {
    return this.#jobs.get(jobId);
  }

  /** Every job, in launch order. */
  list(): SimJobSummary[] {
    return [...this.#jobs.values()].map(({ job_id, kind, status }) => ({ job_id, kind, status }));
  }

  /** RUNNING jobs read back at start whose finished version is known: the simulator finishes them. */
  takeUnfinished(): UnfinishedJob[] {
    return this.#unfinished.splice(0);
  }

  /** Forgets every job and empties the log file. */
  clear(): void {
    this.#jobs.clear();
    this.#unfinished.length = 0;
    if (this.#file !== undefined) writeFileSync(this.#file, '');
  }
}
