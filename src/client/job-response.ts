/**
 * What every job-returning method resolves to: the parsed envelope for reading, and the body exactly as
 * the service sent it, for storing verbatim (design: "the stored envelope is the exact JSON that arrived").
 */
import { type JobEnvelope, jobEnvelopeSchema } from '../contract/envelope.js';
import { parseResponseJson } from './parse-response-json.js';
import type { ServiceResponse } from './request-core.js';

/** A job envelope as returned by a launcher or a finder. */
export interface JobResponse {
  /** The envelope, parsed with parseJsonText (int64 beyond 2^53 as bigint) and checked as a job envelope. */
  readonly job: JobEnvelope;
  /** The body exactly as received, decoded as UTF-8 without any change: store this. */
  readonly raw: string;
  /** The same body as the bytes that came off the wire (for hashing or byte-exact storage). */
  readonly bytes: Uint8Array;
  /** The HTTP status (a 2xx). */
  readonly status: number;
}

/**
 * Reads a 2xx answer as a job envelope. A body that is not JSON or not an envelope throws ServiceError
 * RESPONSE_MALFORMED (status kept, the parser's complaint as `cause`); it is not retried.
 */
export function toJobResponse(response: ServiceResponse, what: string): JobResponse {
  const job = parseResponseJson(response, jobEnvelopeSchema, what);
  return { job, raw: response.text, bytes: response.bytes, status: response.status };
}
