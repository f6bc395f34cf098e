/**
 * A received delivery as a server span (issue 40), made only when tracing is on: method, route, status,
 * outcome, refusal reason, body bytes, and for a stored job its id and kind; an event `verified` when the
 * token is checked (the store is what follows it). Never the token or the body.
 */
import type { OpenSpan, Telemetry } from '../telemetry/telemetry.js';
import type { DeliveryAnswer } from './delivery-answer.js';

/**
 * Runs `receive` in a span of `telemetry`; `bytes` is the body's (declared) length when known. The span is
 * handed to `receive`, not made the active one: no async context is entered on the hot path.
 */
export async function traceDelivery(
  telemetry: Telemetry,
  bytes: number | undefined,
  receive: (span: OpenSpan) => Promise<DeliveryAnswer>,
): Promise<DeliveryAnswer> {
  const span = telemetry.startSpan('POST /webhooks', {
    kind: 'server',
    attributes: {
      'http.request.method': 'POST',
      'http.route': '/webhooks',
      'http.request.body.size': bytes,
    },
  });
  try {
    const answer = await receive(span);
    const body = answer.status === 200 ? (answer.body as { job_id?: unknown; kind?: unknown }) : {};
    span.set({
      'http.response.status_code': answer.status,
      'hooksync.outcome': answer.outcome,
      'hooksync.reason': answer.reason,
      'hooksync.job.id': typeof body.job_id === 'string' ? body.job_id : undefined,
      'hooksync.job.kind': typeof body.kind === 'string' ? body.kind : undefined,
    });
    if (answer.status >= 500) span.fail(answer.reason ?? 'retry later');
    return answer;
  } finally {
    span.end();
  }
}
