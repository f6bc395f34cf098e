/**
 * A destination's running totals (table destination_counters, migration 010): every replica adds its work,
 * and `destinations list`, the status page and /metrics read the sums. Counter names are plain words
 * (`companies_created`, `api_calls`, `rate_limited_daily`, `daily_remaining`); never a secret.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';

/** Adds `increments` to the named counters and sets `gauges`, in one transaction. */
export async function recordCounters(
  db: Kysely<Database>,
  destination: string,
  changes: {
    readonly increments: Readonly<Record<string, number>>;
    readonly gauges?: Readonly<Record<string, number>>;
  },
  nowIso: string,
): Promise<void> {
  const rows = [
    ...Object.entries(changes.increments)
      .filter(([, value]) => value !== 0)
      .map(([counter, value]) => ({ counter, value, add: true })),
    ...Object.entries(changes.gauges ?? {}).map(([counter, value]) => ({ counter, value, add: false })),
  ];
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const { counter, value, add } of rows) {
      await trx
        .insertInto('destination_counters')
        .values({ destination, counter, value, updated_at: nowIso })
        .onConflict((oc) =>
          oc.columns(['destination', 'counter']).doUpdateSet((eb) => ({
            value: add
              ? eb('destination_counters.value', '+', eb.ref('excluded.value'))
              : eb.ref('excluded.value'),
            updated_at: nowIso,
          })),
        )
        .execute();
    }
  });
}

/** Every destination's counters: name → counter → value. */
export async function readCounters(db: Kysely<Database>): Promise<Map<string, Record<string, number>>> {
  const rows = await db
    .selectFrom('destination_counters')
    .select(['destination', 'counter', 'value'])
    .execute();
  const counters = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const held = counters.get(row.destination) ?? {};
    held[row.counter] = Number(row.value);
    counters.set(row.destination, held);
  }
  return counters;
}

/** One line for people: `companies 3 created, 1 updated; contacts 2 created; 9 API calls; 429s: daily 1; ...`. */
export function describeCounters(counters: Readonly<Record<string, number>>): string {
  const parts: string[] = [];
  for (const object of ['companies', 'contacts']) {
    const outcomes = ['created', 'adopted', 'updated', 'skipped', 'failed']
      .filter((outcome) => (counters[`${object}_${outcome}`] ?? 0) > 0)
      .map((outcome) => `${counters[`${object}_${outcome}`]} ${outcome}`);
    if (outcomes.length > 0) parts.push(`${object} ${outcomes.join(', ')}`);
  }
  const messages = ['sent', 'failed']
    .filter((outcome) => (counters[`messages_${outcome}`] ?? 0) > 0)
    .map((outcome) => `${counters[`messages_${outcome}`]} ${outcome}`);
  if (messages.length > 0) parts.push(`messages ${messages.join(', ')}`);
  if ((counters.rate_limited ?? 0) > 0) parts.push(`rate-limited ${counters.rate_limited}`);
  if (counters.digests_pending !== undefined) parts.push(`digests pending ${counters.digests_pending}`);
  if (counters.api_calls !== undefined) parts.push(`${counters.api_calls} API calls`);
  if (counters.tokens_spent !== undefined) parts.push(`${counters.tokens_spent} tokens spent`);
  const limited = Object.entries(counters)
    .filter(([name, value]) => name.startsWith('rate_limited_') && value > 0)
    .map(([name, value]) => `${name.slice('rate_limited_'.length)} ${value}`);
  if (limited.length > 0) parts.push(`429s: ${limited.join(', ')}`);
  if (counters.daily_remaining !== undefined) parts.push(`daily allowance left ${counters.daily_remaining}`);
  return parts.join('; ');
}
