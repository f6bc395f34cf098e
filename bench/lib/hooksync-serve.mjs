/**
 * `hooksync serve` in the calling thread for bench/receiver-server.mjs: startReceiver() from a build's dist/
 * with the environment serve would read, and hooksync's own view of the run from its /metrics.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export async function startHooksyncHere({
  databaseUrl,
  jwksUrl,
  dist: otherDist,
  destinationUrl,
  hubspot,
  env,
}) {
  const dist = otherDist
    ? pathToFileURL(`${otherDist.replace(/\/+$/, '')}/`)
    : new URL('../../dist/', import.meta.url);
  const { loadConfig } = await import(new URL('config/load-config.js', dist).href);
  // A build from before issue 14 kept the composition root in receiver/.
  const root = existsSync(new URL('server/start-receiver.js', dist)) ? 'server' : 'receiver';
  const { startReceiver } = await import(new URL(`${root}/start-receiver.js`, dist).href);
  // The environment `hooksync serve` would read; port 0 picks a free one.
  const config = loadConfig({
    HOOKSYNC_DATABASE_URL: databaseUrl,
    HOOKSYNC_JWKS_URL: jwksUrl,
    HOOKSYNC_HOST: '127.0.0.1',
    HOOKSYNC_PORT: '0',
    HOOKSYNC_LOG_LEVEL: 'silent',
    // e.g. HOOKSYNC_MEMORY_MB (the variant hooksync-ceiling)
    ...env,
  });
  // Loaded only when asked for: a --base-dist build from before destinations has no such module.
  const destinations =
    hubspot !== undefined
      ? await (await import(new URL('destinations/load-destinations.js', dist).href)).parseDestinations(
          {
            destinations: [
              { name: 'bench', type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hubspot.url },
            ],
          },
          { HUBSPOT_TOKEN: hubspot.token },
          'bench',
        )
      : destinationUrl === undefined
        ? []
        : await (await import(new URL('destinations/load-destinations.js', dist).href)).parseDestinations(
            {
              destinations: [
                {
                  name: 'bench',
                  type: 'webhook',
                  url: destinationUrl,
                  secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
                },
              ],
            },
            {},
            'bench',
          );
  // OpenTelemetry (issue 40), as serve turns it on: only when an OTLP endpoint is in the environment.
  const telemetry =
    env?.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? undefined
      : await (await import(new URL('telemetry/start-telemetry.js', dist).href)).startTelemetry(env);
  const receiver = await startReceiver({
    config,
    port: 0,
    ...(destinations.length === 0 ? {} : { destinations }),
    ...(telemetry === undefined ? {} : { telemetry }),
  });
  const url = receiver.url;
  return {
    url,
    // hooksync's own view, from its /metrics (since start, warm-up included).
    async stats() {
      const text = await (await fetch(`${url}/metrics`)).text();
      const metric = (name) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? Number.NaN);
      const outcomes = {};
      for (const [, outcome, n] of text.matchAll(
        /^hooksync_deliveries_total\{outcome="([^"]*)"[^}]*\} (\S+)$/gm,
      )) {
        outcomes[outcome] = (outcomes[outcome] ?? 0) + Number(n);
      }
      const store = receiver.store.stats();
      return {
        transactions: store.transactions,
        committedItems: store.committedItems,
        // Acknowledged large envelopes whose rows are still to be written (the normalization queue).
        backlog: metric('hooksync_normalization_backlog'),
        verifyMsAverage:
          (1000 * metric('hooksync_verify_seconds_sum')) / metric('hooksync_verify_seconds_count'),
        commitMsAverage:
          (1000 * metric('hooksync_commit_seconds_sum')) / metric('hooksync_commit_seconds_count'),
        outcomes,
        // Events the destination's consumer acknowledged (issue 12).
        onward: Number(
          text.match(
            /^hooksync_destination_events_total\{destination="bench",outcome="delivered"\} (\S+)$/m,
          )?.[1] ?? 0,
        ),
      };
    },
    settle: () => receiver.store.settled(),
    close: async () => {
      await receiver.close();
      await telemetry?.shutdown();
    },
  };
}
