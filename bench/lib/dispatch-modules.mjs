/**
 * The parts of a build (its dist/ folder) that the CRM benches drive: the database, the destinations file,
 * the dispatcher and its outbox. Loaded from `dist` so a reference build can be measured in the same run.
 */
export async function loadDispatchModules(dist) {
  const load = (path) => import(new URL(path, dist).href);
  const [database, destinations, dispatcher, admin, dispatchDatabase, outbox] = await Promise.all([
    load('storage/open-migrated-database.js'),
    load('destinations/load-destinations.js'),
    load('destinations/create-dispatcher.js'),
    load('destinations/destination-admin.js'),
    load('destinations/open-dispatch-database.js'),
    load('destinations/outbox.js'),
  ]);
  return {
    openMigratedDatabase: database.openMigratedDatabase,
    parseDestinations: destinations.parseDestinations,
    createDispatcher: dispatcher.createDispatcher,
    replayEvents: admin.replayEvents,
    openDispatchDatabase: dispatchDatabase.openDispatchDatabase,
    syncDestinations: outbox.syncDestinations,
  };
}
