/**
 * Outbound HTTP as client spans (issue 40): each call to the service, a key set, a CRM or a webhook
 * destination is a span of the active trace, and carries that span's W3C traceparent, so the receiving end
 * can continue the trace. Only the method, host, port and path are recorded: a query string may hold a key
 * (Pipedrive's api_token), a body or header never appears.
 */
import type { Telemetry } from './telemetry.js';

/** `fetch` wrapped so that each call is a client span of `telemetry` and sends its traceparent. */
export function tracedFetch(telemetry: Telemetry, fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    // A span of its own, not entered as the active one: a call has no children, and entering an async
    // context would switch async hooks on for the whole process (the key set's fetch at start would).
    const span = telemetry.startSpan(method, {
      kind: 'client',
      attributes: {
        'http.request.method': method,
        'server.address': url.hostname,
        'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
        'url.scheme': url.protocol.slice(0, -1),
        'url.path': url.pathname,
      },
    });
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (span.traceParent !== undefined) headers.set('traceparent', span.traceParent);
    return fetch(input, { ...init, headers }).then(
      (response) => {
        span.set({ 'http.response.status_code': response.status });
        if (response.status >= 500) span.fail(`HTTP ${response.status}`);
        span.end();
        return response;
      },
      (error: unknown) => {
        span.fail(error instanceof Error ? error.name : 'fetch failed');
        span.end();
        throw error;
      },
    );
  };
}
