/**
 * What the HubSpot suites share: a `hubspot` destination named `crm` configured against the stand-in (its
 * routing synced first, so a job stored after it has an event), and the destination built over the world.
 */
import type { HubSpotDestination } from '../../../src/destinations/hubspot/hubspot-destination.js';
import type { ConfiguredDestination } from '../../../src/destinations/load-destinations.js';
import { syncDestinations } from '../../../src/destinations/outbox.js';
import type { HubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import type { DestinationsWorld } from './destinations-context.js';

/** The variable the token is read from. */
export const HUBSPOT_TOKEN_ENV = 'HUBSPOT_TOKEN';

/** Configures the destination `crm` against `hs` (with `extra` settings) and syncs its routing. */
export async function configureHubSpot(
  world: DestinationsWorld,
  hs: HubSpotStandIn,
  extra: Record<string, unknown> = {},
): Promise<ConfiguredDestination> {
  const [configured] = await world.configure(
    {
      destinations: [
        {
          name: 'crm',
          type: 'hubspot',
          token: { env: HUBSPOT_TOKEN_ENV },
          base_url: hs.url,
          linger: '50ms',
          ...extra,
        },
      ],
    },
    { [HUBSPOT_TOKEN_ENV]: hs.token },
  );
  // Routing first: a job stored before it has no event for the destination.
  await syncDestinations(world.database.db, [configured!], new Date().toISOString());
  return configured!;
}

/** The destination of `configured`, over the world's database and logs. */
export function createHubSpot(
  world: DestinationsWorld,
  configured: ConfiguredDestination,
): HubSpotDestination {
  return configured.create({
    database: world.database,
    logger: world.logs.logger,
    now: Date.now,
    fetch: globalThis.fetch,
  }) as HubSpotDestination;
}

/** Runs `setup` for `configured` (not a dry run). */
export function setUpHubSpot(world: DestinationsWorld, configured: ConfiguredDestination) {
  return createHubSpot(world, configured).setupPortal({ dryRun: false, signal: AbortSignal.timeout(30_000) });
}
