/**
 * The quarantine's write side: a body the receiver refused, kept with its reason in the transaction of the
 * job store's batch (the store's `quarantine` entry point submits it; this writes the rows).
 */
import type { Kysely } from 'kysely';
import type { JobKind } from '../../contract/enums.js';
import type { RefusalCode } from '../../errors.js';
import type { Database } from '../database.js';
import { insertRows } from '../job-store/insert-rows.js';
import type { RowRunner } from '../job-store/row-runner.js';
import { textOrNull } from '../normalize-values.js';
import { quarantineBodyColumns } from './quarantine-body.js';

/** A body refused by the receiver, kept with the reason. */
export interface QuarantineInput {
  /** A SignatureReason or another refusal code. */
  readonly reason: RefusalCode;
  readonly detail?: string;
  /** input.task.job_id as the body claimed it, if it could be read. */
  readonly claimedJobId?: string;
  readonly kind?: JobKind | null;
  readonly contentType?: string;
  /** The raw body bytes, as received. */
  readonly body: Uint8Array;
}

/** A refused body on its way to the quarantine, with the row id the store gave it. */
export interface QuarantinedBody {
  readonly input: QuarantineInput;
  readonly id: string;
}

/** Throws TypeError for a caller's mistake: a quarantine needs a reason and the body's bytes. */
export function assertQuarantineInput(input: QuarantineInput): void {
  if (typeof input?.reason !== 'string' || input.reason.length === 0) {
    throw new TypeError('quarantine: reason must be a non-empty string');
  }
  if (!(input.body instanceof Uint8Array)) throw new TypeError('quarantine: body must be a Uint8Array');
}

function quarantineRow({ input, id }: QuarantinedBody, nowIso: string) {
  return {
    id,
    reason: textOrNull(input.reason) ?? '',
    detail: textOrNull(input.detail),
    claimed_job_id: textOrNull(input.claimedJobId),
    kind: input.kind ?? null,
    content_type: textOrNull(input.contentType),
    ...quarantineBodyColumns(input.body),
    received_at: nowIso,
  };
}

/** Inserts the quarantine rows of `entries` in the open transaction `trx`, received at `nowIso`. */
export async function writeQuarantine(
  trx: Kysely<Database>,
  entries: readonly QuarantinedBody[],
  nowIso: string,
  runner?: RowRunner,
): Promise<void> {
  await insertRows(
    trx,
    'quarantine',
    entries.map((entry) => quarantineRow(entry, nowIso)),
    runner,
  );
}
