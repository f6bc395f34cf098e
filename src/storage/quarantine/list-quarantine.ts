/**
 * The quarantine read back whole, for the CLI (`hooksync quarantine`) and library users: each refused
 * callback with its body decoded to the exact bytes received.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../database.js';
import { assertLimit, guarded } from '../query-guards.js';
import { decodeQuarantineBody } from './quarantine-body.js';
import type { QuarantineTable } from './quarantine-tables.js';

/** A quarantined callback as read back, with `body` its exact bytes as received (a Buffer on both dialects). */
export type QuarantineRow = Omit<Selectable<QuarantineTable>, 'body_z'> & { readonly body: Buffer };

/** Quarantined bodies, newest first. */
export async function listQuarantine(
  db: Kysely<Database>,
  options: { limit?: number } = {},
): Promise<QuarantineRow[]> {
  assertLimit(options.limit);
  return guarded(async () => {
    let query = db.selectFrom('quarantine').selectAll().orderBy('received_at', 'desc').orderBy('id', 'desc');
    if (options.limit !== undefined) query = query.limit(options.limit);
    return (await query.execute()).map(({ body_z, ...row }) => ({
      ...row,
      body: decodeQuarantineBody(body_z),
    }));
  });
}

/** How many refused callbacks the quarantine holds (the receiver's gauge). */
export async function countQuarantine(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('quarantine')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
