/**
 * A quarantined body's stored form (quarantine.body_z): the received bytes through envelope-codec.ts's
 * byte codec, or nothing at all once the quarantine's byte budget dropped the body.
 */
import { decodeBytes, decodeBytesPrefix, encodeBytes } from '../envelope-codec.js';

const DROPPED = Buffer.alloc(0);

/** The columns a quarantined body is stored in. */
export function quarantineBodyColumns(body: Uint8Array): { body_z: Buffer; body_bytes: number } {
  return { body_z: encodeBytes(body), body_bytes: body.length };
}

/** The body exactly as it arrived (empty when it was dropped); throws StorageError when damaged. */
export function decodeQuarantineBody(stored: Uint8Array): Buffer {
  return stored.length === 0 ? DROPPED : decodeBytes(stored);
}

/** At most the first `maxBytes` of the body as it arrived, decompressing no more than needed. */
export async function decodeQuarantineBodyPrefix(stored: Uint8Array, maxBytes: number): Promise<Buffer> {
  return stored.length === 0 ? DROPPED : decodeBytesPrefix(stored, maxBytes);
}
