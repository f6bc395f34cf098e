/**
 * A long launch allocates fast (every row checked, every answer parsed, checked and stored) but keeps
 * little: V8 lets the heap grow far past the live set before collecting it, so a 100,000-row run sat near
 * 200 MB with 30 MB live. The young generation is kept at its starting size, the heap in use is looked
 * at a few times a second (a cheap call), and a full collection (tens of ms) runs when it has grown past a
 * ceiling, keeping the peak near the live set.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the heap's size is checked during a launch. */
export const DEFAULT_HEAP_CHECK_INTERVAL_MS = 250;
/** Heap in use past which a collection runs (or twice what the last one left, when that is more). */
export const DEFAULT_HEAP_CEILING_BYTES = 32 * 1024 * 1024;

/** Starts watching the heap; returns the function that stops it. */
export function startHeapTrimmer(
  intervalMs: number = DEFAULT_HEAP_CHECK_INTERVAL_MS,
  ceilingBytes: number = DEFAULT_HEAP_CEILING_BYTES,
): () => void {
  // Node exposes gc() only behind --expose-gc; the flag can be set at run time, and a new context then
  // carries the function (the process's own global object was made before the flag).
  setFlagsFromString('--expose-gc');
  // The young generation doubles (up to 32 MB) whenever many objects outlive a scavenge, as the answers
  // of requests in flight do; V8 reads this factor when it grows the space, so it holds from now on.
  setFlagsFromString('--semi-space-growth-factor=1');
  const collect = runInNewContext('gc') as unknown;
  if (typeof collect !== 'function') return () => {};
  let ceiling = ceilingBytes;
  const timer = setInterval(() => {
    if (getHeapStatistics().used_heap_size <= ceiling) return;
    (collect as () => void)();
    // A live set larger than the ceiling must not make every check a collection.
    ceiling = Math.max(ceilingBytes, 2 * getHeapStatistics().used_heap_size);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
