/**
 * Plain HTTP calls to a running simulator, returning status, headers and the exact body text.
 */

/** One answer. */
export interface SimAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
}

/** Options of {@link callSim}. */
export interface CallOptions {
  /** API key for x-api-key; null sends no header. */
  key: string | null;
  /** A value sent as JSON, or a string sent as is. */
  body?: unknown;
}

/** Calls `method path` on the simulator at `baseUrl`. */
export async function callSim(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions,
): Promise<SimAnswer> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers['x-api-key'] = options.key;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The job_id of a job envelope's task. */
export function jobIdOf(answer: SimAnswer): string {
  const id = (answer.json as { input?: { task?: { job_id?: unknown } } }).input?.task?.job_id;
  if (typeof id !== 'string') throw new TypeError(`no job_id in ${answer.text.slice(0, 200)}`);
  return id;
}
