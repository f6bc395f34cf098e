/**
 * `destinations replay NAME --dry-run` for an alert destination: the messages the replay would post, one
 * line each (where, and what it says), for the selected events, nothing posted or queued.
 */
import type { HooksyncDatabase } from '../../storage/open-database.js';
import { type ReplaySelection, selectReplayEvents } from '../destination-admin.js';
import type { OutboxDestination } from '../destination-type.js';
import { loadEventChanges } from '../outbox.js';
import { changeDelivery } from '../plan-outcome.js';

/** The lines of the messages the replay of `selection` would post. */
export async function previewReplay(options: {
  readonly database: HooksyncDatabase;
  readonly destination: OutboxDestination;
  readonly name: string;
  readonly selection: ReplaySelection;
  readonly signal: AbortSignal;
}): Promise<string[]> {
  const { database, destination } = options;
  const preview = destination.preview;
  if (preview === undefined) return [];
  const events = await selectReplayEvents(database.db, options.name, options.selection)
    .select(['id', 'change_id'])
    .orderBy('id')
    .execute();
  const changes = await loadEventChanges(
    database.db,
    events.flatMap((event) => (event.change_id === null ? [] : [String(event.change_id)])),
  );
  const lines: string[] = [];
  for (const event of events) {
    const change = event.change_id === null ? undefined : changes.get(String(event.change_id));
    if (change === undefined) continue;
    for (const line of await preview(changeDelivery(change), options.signal)) {
      lines.push(`change ${change.id} (${change.watch}, ${change.change}) → ${line}`);
    }
  }
  return lines;
}
