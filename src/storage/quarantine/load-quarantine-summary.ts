/**
 * The quarantine as the status page shows it: how many refused callbacks per reason, and the latest ones
 * with their ids and reasons. A body may hold personal data, so its first bytes are read only when the
 * operator asks for them (a body can be 32 MiB, so only a prefix of it is decompressed).
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';
import { decodeQuarantineBodyPrefix } from './quarantine-body.js';

/** Latest quarantined callbacks listed. */
export const DEFAULT_QUARANTINE_LIST_LIMIT = 50;
/** Bytes of each body shown. */
export const DEFAULT_BODY_PREVIEW_BYTES = 240;

/** One quarantined callback, without most of its body. */
export interface QuarantineEntry {
  readonly id: string;
  readonly reason: string;
  readonly detail: string | null;
  readonly claimedJobId: string | null;
  readonly kind: string | null;
  readonly contentType: string | null;
  readonly receivedAt: string;
  /**
   * The start of the body decoded as UTF-8 (invalid bytes become U+FFFD; a character cut at the end is
   * dropped); undefined unless bodies were asked for.
   */
  readonly bodyPreview: string | undefined;
  readonly bodyBytes: number;
}

/** Reason counts and the latest entries. */
export interface QuarantineSummary {
  readonly total: number;
  /** Most frequent first. */
  readonly reasons: readonly { readonly reason: string; readonly count: number }[];
  /** Newest first. */
  readonly latest: readonly QuarantineEntry[];
  /** Whether each entry holds the start of its body. */
  readonly bodies: boolean;
}

/** Knobs of {@link loadQuarantineSummary}. */
export interface LoadQuarantineSummaryOptions {
  /** Entries listed (default {@link DEFAULT_QUARANTINE_LIST_LIMIT}). */
  limit?: number;
  /** Also read the start of each body (default false: bodies may hold personal data). */
  bodies?: boolean;
}

/** Reads the quarantine summary. */
export async function loadQuarantineSummary(
  db: Kysely<Database>,
  options: LoadQuarantineSummaryOptions = {},
): Promise<QuarantineSummary> {
  const limit = options.limit ?? DEFAULT_QUARANTINE_LIST_LIMIT;
  const bodies = options.bodies === true;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new TypeError('limit must be a positive integer');
  const reasonRows = await db
    .selectFrom('quarantine')
    .select((eb) => ['reason', eb.fn.countAll().as('n')])
    .groupBy('reason')
    .execute();
  const reasons = reasonRows
    .map((row) => ({ reason: row.reason, count: Number(row.n) }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));

  // A compressed body cannot be cut in SQL: with ?bodies=1 the listed rows' stored bodies are read whole
  // (compressed, at most `limit` of them) and only their first bytes decompressed here.
  const rows = await db
    .selectFrom('quarantine')
    .select([
      'id',
      'reason',
      'detail',
      'claimed_job_id',
      'kind',
      'content_type',
      'received_at',
      'body_bytes',
      bodies ? 'body_z' : sql<null>`null`.as('body_z'),
    ])
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return {
    total: reasons.reduce((sum, r) => sum + r.count, 0),
    reasons,
    bodies,
    latest: await Promise.all(
      rows.map(async (row) => ({
        id: row.id,
        reason: row.reason,
        detail: row.detail,
        claimedJobId: row.claimed_job_id,
        kind: row.kind,
        contentType: row.content_type,
        receivedAt: row.received_at,
        bodyPreview: bodies ? await decodePrefix(row.body_z) : undefined,
        bodyBytes: Number(row.body_bytes),
      })),
    ),
  };
}

async function decodePrefix(stored: Uint8Array | null): Promise<string> {
  if (stored === null) return '';
  const bytes = await decodeQuarantineBodyPrefix(stored, DEFAULT_BODY_PREVIEW_BYTES);
  // stream: true without a final flush drops a multi-byte character cut by the prefix instead of showing U+FFFD.
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes, { stream: true });
}
