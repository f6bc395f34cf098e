/**
 * Preloaded (`--import`) into a benchmarked server process, and so into each of its worker threads (they
 * inherit the execArgv): a worker thread appends its Linux thread id to the file named by
 * HOOKSYNC_BENCH_THREADS_FILE, so that the server can read that thread's CPU time from /proc (the store
 * worker's share of a request, apart from the main thread's and libuv's pool). Node 20 leaves every
 * thread named "node", hence this.
 */
import { appendFileSync, readlinkSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.HOOKSYNC_BENCH_THREADS_FILE;
if (!isMainThread && file) {
  try {
    appendFileSync(file, `${readlinkSync('/proc/thread-self').split('/').pop()}\n`);
  } catch {
    // Not Linux: the split by thread is simply not shown.
  }
}
