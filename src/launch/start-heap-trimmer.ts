/**
 * A long launch allocates fast (every answer parsed, checked and stored) but keeps little: V8 lets the old
 * generation grow far past the live set before collecting it, so a 100,000-row run would sit near 200 MB
 * with 30 MB live. A full collection every few seconds (a few ms each) keeps the peak near the live set.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the heap is collected during a launch. */
export const DEFAULT_HEAP_TRIM_INTERVAL_MS = 2000;

/** Starts collecting the heap every `intervalMs`; returns the function that stops it. */
export function startHeapTrimmer(intervalMs: number = DEFAULT_HEAP_TRIM_INTERVAL_MS): () => void {
  // Node exposes gc() only behind --expose-gc; the flag can be set at run time, and a new context then
  // carries the function (the process's own global object was made before the flag).
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as unknown;
  if (typeof collect !== 'function') return () => {};
  const timer = setInterval(() => (collect as () => void)(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
