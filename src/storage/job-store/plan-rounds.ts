/**
 * Splits a batch of jobs into rounds that set-based statements can take: within a round no job_id and
 * no jti appears twice (Postgres refuses an upsert that touches one row twice, and the order of copies of
 * one job matters: a RUNNING copy then a finished one is an upgrade).
 */
import type { PreparedJob } from './prepare-job.js';

/** Indexes into the batch: rounds to run in order, and items whose jti an earlier item already carries. */
export interface BatchPlan {
  readonly rounds: readonly (readonly number[])[];
  /** Replays within the batch itself: a jti seen earlier in the same batch. */
  readonly replays: readonly number[];
}

/** Round k holds the (k+1)-th copy of each job, in arrival order. */
export function planRounds(jobs: readonly PreparedJob[]): BatchPlan {
  const rounds: number[][] = [];
  const replays: number[] = [];
  const seenJtis = new Set<string>();
  const copies = new Map<string, number>();
  jobs.forEach((job, index) => {
    if (job.jti !== undefined) {
      if (seenJtis.has(job.jti)) {
        replays.push(index);
        return;
      }
      seenJtis.add(job.jti);
    }
    const round = copies.get(job.jobId) ?? 0;
    copies.set(job.jobId, round + 1);
    let members = rounds[round];
    if (members === undefined) {
      members = [];
      rounds[round] = members;
    }
    members.push(index);
  });
  return { rounds, replays };
}
