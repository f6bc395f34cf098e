/**
 * Migration 030: `persons_linkedin_url_idx` holds only the persons without a `person_id`. Its one reader
 * is an export's newest-only rule, which matches a person by `linkedin_url` only when neither row has a
 * `person_id` (`person_id IS NULL` is in that probe, so both dialects' planners use the partial index);
 * purges match `lower(linkedin_url)` and never used it. Every person the service returns has an id, so
 * the full index was a random-key B-tree insert per person stored for nothing: on a 250-person page it was
 * about a third of the store worker's CPU (bench/RESULTS.md, issue 42).
 */
import { type Kysely, sql } from 'kysely';

const NAME = 'persons_linkedin_url_idx';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex(NAME).ifExists().execute();
  await db.schema
    .createIndex(NAME)
    .on('persons')
    .column('linkedin_url')
    .where(sql.ref('person_id'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex(NAME).ifExists().execute();
  await db.schema.createIndex(NAME).on('persons').column('linkedin_url').execute();
}
