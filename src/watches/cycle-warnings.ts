/**
 * What a cycle says once: the invalid rows its first reading met, and a period too short for the rate.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../storage/database.js';
import { noteOverrun } from './watch-store.js';

/** Says what a reading of the source found invalid (the first problems named), if anything. */
export function warnInvalid(
  logger: Logger,
  watch: string,
  cycle: number,
  tally: { readonly invalid: number; readonly problems: readonly string[] },
): void {
  if (tally.invalid === 0) return;
  logger.warn(
    { watch, cycle, invalid: tally.invalid, problems: tally.problems },
    `watch "${watch}": ${tally.invalid} rows of its source are invalid and are not checked (${tally.problems.join(' | ')})`,
  );
}

/**
 * Says once, across processes, that `pending` rows at `rate` take longer than the `leftMs` left of the
 * cycle's period.
 */
export async function warnOverrun(
  at: {
    readonly db: Kysely<Database>;
    readonly logger: Logger;
    readonly watch: string;
    readonly cycle: number;
  },
  load: {
    readonly pending: number;
    readonly rate: { readonly requests: number; readonly perMs: number };
    readonly leftMs: number;
  },
): Promise<void> {
  const { pending, rate, leftMs } = load;
  if (pending === 0) return;
  const needMs = (pending * rate.perMs) / rate.requests;
  if (needMs <= leftMs || !(await noteOverrun(at.db, at.watch, at.cycle))) return;
  at.logger.warn(
    {
      watch: at.watch,
      cycle: at.cycle,
      rows: pending,
      rate: `${rate.requests}/${rate.perMs / 1000}s`,
      need_ms: Math.round(needMs),
      left_ms: Math.max(0, Math.round(leftMs)),
    },
    `watch "${at.watch}": ${pending} rows at ${rate.requests} per ${rate.perMs / 1000}s take ${Math.ceil(needMs / 60_000)} min, longer than the ${Math.max(0, Math.round(leftMs / 60_000))} min left of its period; the cycle runs at the rate and the next one starts when it ends`,
  );
}
