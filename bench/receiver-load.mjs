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
 *
 * `sender: 'retrying'` (bench/receiver.mjs --sender retrying) replaces autocannon with the service's own
 * behaviour as the simulator's webhook dispatcher models it: Node's fetch, one delivery per request (a new
 * connection after an answer with `Connection: close`), and a delivery answered 429/500/502/504 or failed on
 * the network retried after 1, 2, 4, 8, 16 s, at most 5 times. `connections` deliveries are in flight at
 * once; one waiting for its retry holds no slot (a backlog has more deliveries to send meanwhile).
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
  load: (options) => (options.sender === 'retrying' ? runRetryingLoad(options) : runLoad(options)),
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

/** Retries of one delivery and their waits, ms (the interface: up to 5, exponential backoff). */
const RETRY_WAITS_MS = [1000, 2000, 4000, 8000, 16_000];
const RETRY_STATUSES = new Set([429, 500, 502, 504]);

/** The pool's deliveries sent as the service sends them (see the header), until the window ends. */
function runRetryingLoad({ url, warmupMs, windowMs, connections }) {
  if (pool === undefined) throw new Error('prepare a pool first');
  const target = `${url}/webhooks`;
  const started = performance.now();
  const windowStartMs = started + warmupMs;
  const windowEndMs = windowStartMs + windowMs;
  let next = 0;
  let inFlight = 0;
  let answered = 0;
  let sent = 0;
  let errors = 0;
  let lastResponseMs = windowStartMs;
  const acked = [];
  const latencies = [];
  const inWindow = { ok: 0, non2xx: 0 };
  const byStatus = {};
  /** Deliveries waiting for their retry: [due ms, index, retries so far]. */
  const due = [];
  let stopped = false;
  let emittedStart = false;
  return new Promise((resolve) => {
    const record = (sentAt, code) => {
      const now = performance.now();
      if (now < windowStartMs || now > windowEndMs) return;
      lastResponseMs = now;
      latencies.push(now - sentAt);
      if (code >= 200 && code < 300) inWindow.ok += 1;
      else inWindow.non2xx += 1;
    };
    const send = async (index, retries) => {
      inFlight += 1;
      sent += 1;
      const sentAt = performance.now();
      let retry = false;
      try {
        const response = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-webhook-signature': pool.tokens[index] },
          body: pool.body(index),
          signal: AbortSignal.timeout(60_000),
        });
        await response.arrayBuffer();
        answered += 1;
        byStatus[response.status] = (byStatus[response.status] ?? 0) + 1;
        if (response.status >= 200 && response.status < 300) acked.push(pool.jobIds[index]);
        record(sentAt, response.status);
        retry = RETRY_STATUSES.has(response.status);
      } catch {
        errors += 1;
        byStatus.error = (byStatus.error ?? 0) + 1;
        retry = true;
      }
      inFlight -= 1;
      if (retry && retries < RETRY_WAITS_MS.length) {
        due.push([performance.now() + RETRY_WAITS_MS[retries], index, retries + 1]);
      }
      fill();
    };
    const fill = () => {
      const now = performance.now();
      if (!emittedStart && now >= windowStartMs) {
        emittedStart = true;
        emitEvent('window-start');
      }
      if (now >= windowEndMs) stopped = true;
      while (!stopped && inFlight < connections) {
        const ready = due.findIndex(([at]) => at <= now);
        if (ready !== -1) {
          const [, index, retries] = due.splice(ready, 1)[0];
          void send(index, retries);
        } else if (next < pool.size) {
          void send(next++, 0);
        } else break;
      }
      if (stopped && inFlight === 0 && !finished) finish();
    };
    let finished = false;
    const finish = () => {
      finished = true;
      clearInterval(ticker);
      clearTimeout(endTimer);
      latencies.sort((a, b) => a - b);
      const elapsedMs = Math.min(windowEndMs, lastResponseMs) - windowStartMs;
      resolve({
        completed: latencies.length,
        ok: inWindow.ok,
        non2xx: inWindow.non2xx,
        byStatus,
        errors,
        elapsedMs,
        requestsPerSecond: elapsedMs > 0 ? latencies.length / (elapsedMs / 1000) : Number.NaN,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        sent,
        unanswered: sent - answered - errors,
        poolExhausted: next >= pool.size,
        acked,
      });
    };
    // Retries fall due and the window opens between answers too.
    const ticker = setInterval(fill, 50);
    const endTimer = setTimeout(() => {
      emitEvent('window-end');
      stopped = true;
      fill();
    }, warmupMs + windowMs);
    fill();
  });
}
