/**
 * A received delivery as a server span (issue 40), made only when tracing is on: method, route, status,
 * outcome, refusal reason, body bytes, and for a stored job its id and kind; an event `verified` when the
 * token is checked (the store is what follows it). Never the token or the body.
 */
import type { SpanScope, Telemetry } from '../telemetry/telemetry.js';
import type { DeliveryAnswer } from './delivery-answer.js';

/** Runs `receive` in a span of `telemetry`; `bytes` is the body's (declared) length when known. */
export function traceDelivery(
  telemetry: Telemetry,
  bytes: number | undefined,
  receive: (span: SpanScope) => Promise<DeliveryAnswer>,
): Promise<DeliveryAnswer> {
  return telemetry.inSpan(
    'POST /webhooks',
    {
      kind: 'server',
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/webhooks',
        'http.request.body.size': bytes,
      },
    },
    async (span) => {
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
    },
  );
}
