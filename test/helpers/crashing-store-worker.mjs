/**
 * The real store worker (from dist/), which exits at once, as a crash would, when it is sent the job whose
 * job_id is CRASHING_JOB_ID. Its listener is registered before the worker's own, so it sees each message
 * first. For the worker job store's restart test.
 */
import { parentPort } from 'node:worker_threads';

/** The job_id that makes this worker exit (worker-job-store.test.ts uses the same). */
const CRASHING_JOB_ID = 'dead0000-0000-4000-8000-000000000000';

parentPort.on('message', (message) => {
  if (
    message.t === 'ops' &&
    message.ops.some(({ op }) => op.type === 'job' && op.job.jobId === CRASHING_JOB_ID)
  ) {
    process.exit(1);
  }
});
await import('../../dist/storage/job-store/store-worker.js');
