/**
 * serve's bounded thread for bench/receiver-server.mjs: startReceiver() (bench/lib/hooksync-serve.mjs) in
 * this worker thread, started under the V8 limits the executable gives serve's thread, answering `start`,
 * `stats`, `settle` and `close` from the process's main thread. Its stats add this thread's own peaks of
 * process.memoryUsage() (the request thread's heap and array buffers; RSS is the process's, sampled there).
 */
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { startHooksyncHere } from './hooksync-serve.mjs';

const peaks = { heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
setInterval(() => {
  const usage = process.memoryUsage();
  for (const name of Object.keys(peaks)) peaks[name] = Math.max(peaks[name], usage[name]);
}, 20).unref();

let running;
const handlers = {
  async start() {
    running = await startHooksyncHere(workerData);
    let tid;
    try {
      tid = readlinkSync('/proc/thread-self').split('/').pop();
    } catch {
      // Not Linux: the CPU split by thread is not shown.
    }
    return { url: running.url, tid };
  },
  async stats() {
    return {
      ...(await running.stats()),
      threadMemoryPeaksMb: Object.fromEntries(
        Object.entries(peaks).map(([name, bytes]) => [name, Math.round(bytes / 2 ** 20)]),
      ),
    };
  },
  settle: () => running.settle(),
  async close() {
    await running?.close();
    parentPort.unref();
  },
};

parentPort.on('message', async ({ id, type }) => {
  try {
    parentPort.postMessage({ id, ok: true, result: await handlers[type]() });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
