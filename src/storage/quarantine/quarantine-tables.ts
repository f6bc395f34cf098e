/** The quarantine's table (storage/quarantine/): refused callbacks and why. */
import type { JobKind } from '../../contract/enums.js';

/** A refused callback body, kept with the reason it was refused. */
export interface QuarantineTable {
  id: string;
  /** A SignatureReason or another refusal code. */
  reason: string;
  detail: string | null;
  claimed_job_id: string | null;
  kind: JobKind | null;
  content_type: string | null;
  /**
   * The raw body as received (may not be valid UTF-8), compressed by envelope-codec.ts's encodeBytes
   * (migration 009); read it through decodeQuarantineBody. Empty once the byte budget dropped it.
   */
  body_z: Buffer;
  /** The body's size as received, in bytes (0 once dropped). */
  body_bytes: number;
  received_at: string;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface QuarantineTables {
  quarantine: QuarantineTable;
}
