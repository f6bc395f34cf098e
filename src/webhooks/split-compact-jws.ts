/**
 * Strict, allocation-light decoding of a compact JWS (RFC 7515 §7.1) into its three segments, for the
 * webhook verifier. Nothing here checks a signature.
 */
import { SignatureError } from '../errors.js';

/**
 * Longest X-Webhook-Signature accepted, in characters. A genuine token is a few hundred; the bound keeps a
 * hostile header from costing decode time.
 */
export const SIGNATURE_MAX_LENGTH = 8192;

/** The three base64url segments of a compact JWS, as they appeared on the wire. */
export interface CompactJwsSegments {
  header: string;
  payload: string;
  signature: string;
}

const BASE64URL_SEGMENT = /^[A-Za-z0-9_-]*$/;

/**
 * Splits a compact JWS into its segments; throws SignatureError SIGNATURE_MALFORMED unless there are
 * exactly three, made of base64url characters only. The signature segment may be empty here (`alg: none`).
 */
export function splitCompactJws(token: string): CompactJwsSegments {
  if (token.length > SIGNATURE_MAX_LENGTH) {
    throw malformed(`signature is longer than ${SIGNATURE_MAX_LENGTH} characters`);
  }
  const first = token.indexOf('.');
  const second = first === -1 ? -1 : token.indexOf('.', first + 1);
  if (second === -1 || token.indexOf('.', second + 1) !== -1) {
    throw malformed('signature is not a compact JWS of three segments');
  }
  const segments = {
    header: token.slice(0, first),
    payload: token.slice(first + 1, second),
    signature: token.slice(second + 1),
  };
  if (!isBase64url(segments.header) || segments.header.length === 0) throw malformed('bad header segment');
  if (!isBase64url(segments.payload) || segments.payload.length === 0) throw malformed('bad payload segment');
  if (!isBase64url(segments.signature)) throw malformed('bad signature segment');
  return segments;
}

// True for unpadded base64url text of a length some byte string encodes to (RFC 7515 §2).
function isBase64url(segment: string): boolean {
  return segment.length % 4 !== 1 && BASE64URL_SEGMENT.test(segment);
}

/**
 * Decodes a header or payload segment to the JSON object it must hold; throws SignatureError
 * SIGNATURE_MALFORMED for anything else (not JSON, an array, null, a scalar).
 */
export function decodeJsonSegment(segment: string, what: 'header' | 'payload'): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch (cause) {
    throw malformed(`${what} segment is not JSON`, cause);
  }
  if (!isPlainObject(value)) throw malformed(`${what} segment is not a JSON object`);
  return value;
}

/** True for a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(message: string, cause?: unknown): SignatureError {
  return new SignatureError('SIGNATURE_MALFORMED', message, { cause });
}
