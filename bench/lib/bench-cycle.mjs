/**
 * One watch cycle for the benchmarks (built modules from dist/, imported when called, so that a thread
 * that never runs a cycle loads none of them): on a client paced far above the simulator's needs, on a
 * fake clock whose sleeps pass at once (a cycle spread over its period runs in seconds).
 */
const dist = (path) => import(new URL(`../../dist/${path}`, import.meta.url).href);

/** A clock whose sleeps advance it at once (the event loop let go between them). */
export function steppingClock(startMs = Date.now()) {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    sleep: async (ms, signal) => {
      nowMs += Math.max(0, ms);
      await new Promise((resolve) => setImmediate(resolve));
      return !signal.aborted;
    },
  };
}

/** Runs `cycle` of `watch` against the simulator at `simUrl`; its summary and the seconds it took. */
export async function runBenchCycle({ watch, cycle, db, store, simUrl, apiKey, logger, clock, spread }) {
  const { createClient } = await dist('client/create-client.js');
  const { createLauncher } = await dist('launch/create-launcher.js');
  const { runCycle } = await dist('watches/run-cycle.js');
  const client = createClient({
    baseUrl: simUrl,
    apiKey,
    logger,
    rateLimit: { perInterval: 100_000, intervalSeconds: 1 },
  });
  const started = performance.now();
  const summary = await runCycle(
    watch,
    cycle,
    { db, launcher: createLauncher({ client, store, db }), logger, clock, webhookUrl: undefined },
    { spread, signal: new AbortController().signal },
  );
  return { summary, seconds: (performance.now() - started) / 1000 };
}
