/**
 * Per-call knobs every client method accepts.
 */

/** Options of one client call. */
export interface CallOptions {
  /** Cancels the call: pacing waits, retry waits and the request in flight; the call rejects with its reason. */
  signal?: AbortSignal;
}
