/**
 * Migration 021 (issue 43): cleans the rows an earlier build let a remote party grow. A 429's `policyName`
 * became a counter row of its own (`rate_limited_<anything>`, megabytes long): those fold into
 * `rate_limited_unknown`, as the counters now do (destinations/crm/crm-counters.ts). Error texts and reasons
 * longer than the bound of contract/outside-text.ts are cut to it. Data only; nothing to undo.
 */
import { type Kysely, sql } from 'kysely';

/** The `rate_limited_` counters the CRMs' documented policies make (crm-counters.ts' COUNTED_POLICIES). */
const KEPT_RATE_COUNTERS = [
  'rate_limited_ten_secondly_rolling',
  'rate_limited_secondly',
  'rate_limited_daily',
  'rate_limited_burst',
  'rate_limited_daily_share',
  'rate_limited_totalrequests',
  'rate_limited_max_share',
  'rate_limited_unknown',
];
/** MAX_OUTSIDE_TEXT_CHARS when this migration was written: a migration does not move with the code. */
const MAX_CHARS = 500;
/** Columns that held text from outside: table, column. */
const TEXT_COLUMNS = [
  ['outbox_events', 'last_error'],
  ['destinations', 'last_error'],
  ['destinations', 'pause_reason'],
  ['expected_jobs', 'last_error'],
  ['launch_rows', 'error'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  const prefix = 'rate_limited_';
  const grown = sql`substr(counter, 1, ${prefix.length}) = ${prefix} and counter not in (${sql.join(KEPT_RATE_COUNTERS)})`;
  await sql`
    insert into destination_counters (destination, counter, value, updated_at)
    select destination, 'rate_limited_unknown', sum(value), max(updated_at)
    from destination_counters where ${grown} group by destination
    on conflict (destination, counter) do update set value = destination_counters.value + excluded.value
  `.execute(db);
  await sql`delete from destination_counters where ${grown}`.execute(db);
  for (const [table, column] of TEXT_COLUMNS) {
    const ref = sql.ref(column);
    await sql`
      update ${sql.table(table)} set ${ref} = substr(${ref}, 1, ${MAX_CHARS - 1}) || '…'
      where length(${ref}) > ${MAX_CHARS}
    `.execute(db);
  }
}
