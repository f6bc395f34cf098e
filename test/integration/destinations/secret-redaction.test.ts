/**
 * No destination secret (a webhook's signing secret, a HubSpot token) reaches a log line, an error, /metrics, the status page or `destinations list`,
 * whether it is given literally or through the environment, while deliveries fail, retry, give up and pause.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDestinationStates } from '../../../src/destinations/destination-admin.js';
import type { HubSpotDestination } from '../../../src/destinations/hubspot/hubspot-destination.js';
import { loadStatusSnapshot } from '../../../src/server/status-page/load-status-snapshot.js';
import { renderDestinations } from '../../../src/server/status-page/render-destinations.js';
import { rateLimitBody, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import {
  createWebhookSecret,
  type StandardWebhookConsumer,
  startStandardWebhookConsumer,
} from '../../helpers/standard-webhook-consumer.js';
import { type DestinationsWorld, openWorld, provisionSqlite, until } from './destinations-context.js';

/** Everything a user or an operator sees: logs, /metrics, `destinations list`, the status page, the config. */
async function everyOutput(world: DestinationsWorld, destinations: unknown) {
  const snapshot = await loadStatusSnapshot({ db: world.database.db, now: new Date() });
  expect(snapshot.destinations.ok).toBe(true);
  return {
    logs: world.logs.text(),
    metrics: await world.registry.metrics(),
    list: JSON.stringify(await listDestinationStates(world.database.db, Date.now())),
    statusPage: snapshot.destinations.ok ? String(renderDestinations(snapshot.destinations.value)) : '',
    configured: JSON.stringify(destinations),
  };
}

describe('destination secrets stay secret', () => {
  let world: DestinationsWorld;
  let literal: StandardWebhookConsumer;
  let fromEnv: StandardWebhookConsumer;
  const literalSecret = createWebhookSecret();
  const envSecret = createWebhookSecret();

  beforeEach(async () => {
    world = await openWorld(provisionSqlite);
    literal = await startStandardWebhookConsumer(literalSecret);
    fromEnv = await startStandardWebhookConsumer(envSecret);
  });
  afterEach(async () => {
    await world.close();
    await literal.close();
    await fromEnv.close();
  });

  it('keeps both kinds of secret out of every output', async () => {
    literal.answer(() => ({ status: 500, body: 'down for maintenance' }));
    fromEnv.answer(() => ({ status: 410 }));
    const destinations = await world.configure(
      {
        destinations: [
          {
            name: 'literal',
            type: 'webhook',
            url: literal.url,
            secret: literalSecret,
            retry: { schedule: ['1ms'] },
          },
          { name: 'from-env', type: 'webhook', url: fromEnv.url, secret: { env: 'HOOK_SECRET' } },
        ],
      },
      { HOOK_SECRET: envSecret },
    );
    await world.dispatcher(destinations);
    await world.storeFixture('company-reveal');
    await until('the literal one gives up', async () => {
      const states = await listDestinationStates(world.database.db, Date.now());
      return states.find((s) => s.name === 'literal')?.failed === 1;
    });
    await until('the other one is paused', async () => {
      const states = await listDestinationStates(world.database.db, Date.now());
      return states.find((s) => s.name === 'from-env')?.paused === true;
    });
    const outputs = await everyOutput(world, destinations);
    // The outputs are not empty: they say what happened, only without the secrets.
    expect(outputs.logs).toContain('gave up on an event');
    expect(outputs.logs).toContain('destination paused');
    expect(outputs.metrics).toContain(
      'hooksync_destination_events_total{destination="literal",outcome="failed"} 1',
    );
    expect(outputs.statusPage).toContain('paused');
    for (const [where, text] of Object.entries(outputs)) {
      for (const secret of [literalSecret, envSecret]) {
        expect(text, where).not.toContain(secret.slice('whsec_'.length, 'whsec_'.length + 16));
      }
    }
  });

  it('keeps a HubSpot token out of every output, while it works, is rate limited and is refused', async () => {
    const hs = await startHubSpotStandIn();
    try {
      const destinations = await world.configure(
        {
          destinations: [{ name: 'crm', type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hs.url }],
        },
        { HUBSPOT_TOKEN: hs.token },
      );
      const crm = destinations[0]!.create({
        database: world.database,
        logger: world.logs.logger,
        now: Date.now,
        fetch: globalThis.fetch,
      }) as HubSpotDestination;
      await crm.setupPortal({ dryRun: false, signal: AbortSignal.timeout(10_000) });
      await world.dispatcher(destinations);
      await world.storeFixture('search-contact');
      await until('the first batch is written', () => hs.records('contacts').length > 0);
      hs.failNext({
        status: 429,
        body: rateLimitBody('TEN_SECONDLY_ROLLING'),
        match: { pathIncludes: '/batch/' },
      });
      await world.storeFixture('company-reveal');
      await until('the 429 is recorded', async () =>
        ((await listDestinationStates(world.database.db, Date.now()))[0]?.last_error ?? '').includes(
          'TEN_SECONDLY',
        ),
      );
      hs.failNext({ status: 401, times: 10 });
      await world.database.db
        .updateTable('outbox_events')
        .set({ next_attempt_at: new Date(0).toISOString() })
        .execute();
      // Paused until resumed (the 401), not the timed pause of the 429 before it, which also shows as paused.
      await until('the destination is paused until resumed', async () => {
        const state = (await listDestinationStates(world.database.db, Date.now()))[0];
        return state?.paused === true && state.paused_until === null;
      });
      const outputs = await everyOutput(world, destinations);
      expect(outputs.list).toContain('HUBSPOT_TOKEN');
      expect(outputs.statusPage).toContain('API calls');
      expect(outputs.metrics).toContain('counter="api_calls"');
      for (const [where, text] of Object.entries(outputs)) expect(text, where).not.toContain(hs.token);
      // Every call carried it, in the Authorization header only.
      expect(hs.calls().length).toBeGreaterThan(3);
    } finally {
      await hs.close();
    }
  });
});
