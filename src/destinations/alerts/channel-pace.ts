/**
 * Paces posts per channel in this process: Slack takes about one message a second per channel (and
 * answers 429 beyond short bursts), so a post waits for its channel's turn; other channels go on.
 */

/** A per-channel pace. */
export interface ChannelPace {
  /** Waits for `channel`'s turn (rejects when `signal` aborts first). */
  turn(channel: string, signal: AbortSignal): Promise<void>;
}

/** Most channels remembered (the least recently used are forgotten). */
const MAX_CHANNELS = 10_000;

/** One post per `intervalMs` per channel, on the clock `now`. */
export function createChannelPace(intervalMs: number, now: () => number): ChannelPace {
  const next = new Map<string, number>();
  return {
    async turn(channel, signal) {
      const nowMs = now();
      const at = Math.max(nowMs, next.get(channel) ?? 0);
      next.delete(channel);
      next.set(channel, at + intervalMs);
      if (next.size > MAX_CHANNELS) next.delete(next.keys().next().value!);
      const waitMs = at - nowMs;
      if (waitMs <= 0) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', abort);
          resolve();
        }, waitMs);
        const abort = () => {
          clearTimeout(timer);
          reject(signal.reason);
        };
        signal.addEventListener('abort', abort, { once: true });
      });
    },
  };
}
