#!/usr/bin/env node
/**
 * The load generator of bench/receiver.mjs, in its own process: autocannon with N connections, each
 * request the next delivery of a pool made before the timed part (distinct job_id, jti, body and
 * signature). Driven over IPC:
 *   prepare { kind, count, key, iatSeconds }  makes the pool (the same pool for every server of a round)
 *   load { url, warmupMs, windowMs, connections }  one continuous run: warm-up, then the timed window
 *       (events `window-start` and `window-end` mark it), then a drain: no new delivery is sent, the ones
 *       in flight are answered (connections send GET /healthz meanwhile), then stop. Returns the counts,
 *       req/s over the window, p50/p99 latency of the responses inside it, and every job_id answered 2xx
 *       (warm-up and drain included), so that the stored jobs can be compared with them exactly.
 * The load never pauses between warm-up and window: the window measures the steady state, with the
 * server's queue already full, and no delivery is abandoned.
 */
import autocannon from 'autocannon';
import { emitEvent, serveChannel } from './lib/child-channel.mjs';
import { loadPayloadTemplate } from './lib/delivery-payloads.mjs';
import { createDeliveryPool } from './lib/delivery-pool.mjs';
import { percentile } from './lib/stats.mjs';

let pool;
/** Longest wait for the deliveries in flight at the end of the window. */
const DRAIN_TIMEOUT_MS = 30_000;

serveChannel({
  prepare({ kind, count, key, iatSeconds }) {
    pool = undefined;
    const started = performance.now();
    const template = loadPayloadTemplate(kind);
    pool = createDeliveryPool({ template, key, count, iatSeconds });
    return { bodyBytes: template.bytes, label: template.label, prepareMs: performance.now() - started };
  },
  load: runLoad,
  stop() {},
});

/** Sends the pool's deliveries in order until the window ends or the pool is used up. */
function runLoad({ url, warmupMs, windowMs, connections }) {
  if (pool === undefined) throw new Error('prepare a pool first');
  if (pool.size < connections)
    throw new Error(`a pool of ${pool.size} is too small for ${connections} connections`);
  let next = 0;
  let answered = 0;
  let draining = false;
  let drainTimer;
  // Set by onResponse, read by the 'response' event autocannon emits right after it for the same response.
  let lastWasDelivery = false;
  const acked = [];
  const latencies = [];
  const inWindow = { ok: 0, non2xx: 0 };
  const byStatus = {};
  let windowStartMs = Number.POSITIVE_INFINITY;
  let windowEndMs = Number.POSITIVE_INFINITY;
  let lastResponseMs = 0;

  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        pipelining: 1,
        // Every delivery is sent at most once: autocannon stops each connection at its share.
        amount: pool.size,
        timeout: 60,
        // Checks the stop flag every 50 ms, so that the run ends promptly at the end of the window.
        sampleInt: 50,
        requests: [
          {
            method: 'POST',
            path: '/webhooks',
            setupRequest(request, context) {
              if (draining) {
                // Keeps the connection busy without sending a delivery (not counted anywhere).
                request.method = 'GET';
                request.path = '/healthz';
                request.headers = {};
                request.body = undefined;
                return request;
              }
              const index = Math.min(next, pool.size - 1);
              next += 1;
              context.jobId = pool.jobIds[index];
              request.headers = {
                'content-type': 'application/json',
                'x-webhook-signature': pool.tokens[index],
              };
              request.body = pool.body(index);
              return request;
            },
            onResponse(code, _body, context) {
              lastWasDelivery = context.jobId !== undefined;
              if (!lastWasDelivery) return;
              answered += 1;
              if (code >= 200 && code < 300) acked.push(context.jobId);
              if (draining && answered === next) instance.stop();
            },
          },
        ],
      },
      (error, result) => {
        clearTimeout(startTimer);
        clearTimeout(endTimer);
        clearTimeout(drainTimer);
        if (error) {
          reject(error);
          return;
        }
        const poolExhausted = windowEndMs === Number.POSITIVE_INFINITY;
        if (poolExhausted) emitEvent('window-end');
        // A pool used up before the window opened leaves nothing to measure (NaN, shown as n/a).
        const elapsedMs =
          windowStartMs === Number.POSITIVE_INFINITY
            ? Number.NaN
            : Math.min(windowEndMs, lastResponseMs) - windowStartMs;
        latencies.sort((a, b) => a - b);
        resolve({
          completed: latencies.length,
          ok: inWindow.ok,
          non2xx: inWindow.non2xx,
          byStatus,
          errors: result.errors + result.timeouts,
          elapsedMs,
          requestsPerSecond: elapsedMs > 0 ? latencies.length / (elapsedMs / 1000) : Number.NaN,
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          sent: next,
          unanswered: next - answered,
          poolExhausted,
          acked,
        });
      },
    );
    const startTimer = setTimeout(() => {
      windowStartMs = performance.now();
      emitEvent('window-start');
    }, warmupMs);
    const endTimer = setTimeout(() => {
      windowEndMs = performance.now();
      emitEvent('window-end');
      draining = true;
      if (answered === next) instance.stop();
      else drainTimer = setTimeout(() => instance.stop(), DRAIN_TIMEOUT_MS);
    }, warmupMs + windowMs);
    instance.on('response', (_client, code, _bytes, responseTimeMs) => {
      if (!lastWasDelivery) return;
      byStatus[code] = (byStatus[code] ?? 0) + 1;
      const now = performance.now();
      if (now < windowStartMs || now > windowEndMs) return;
      lastResponseMs = now;
      latencies.push(responseTimeMs);
      if (code >= 200 && code < 300) inWindow.ok += 1;
      else inWindow.non2xx += 1;
    });
  });
}
