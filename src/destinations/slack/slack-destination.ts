/**
 * The `slack` destination: a watch's changes posted to Slack, one message per change and route target
 * (a channel, or the contact's owner by direct message), or gathered into digests. A bot token posts
 * through the Web API (`chat.postMessage`; owners found with `users.lookupByEmail`, kept an hour); an
 * incoming webhook posts everything to its one channel. Each channel is paced at about one message a
 * second in this process (`channel_interval`), so that Slack's 429s stay rare.
 */

import { createAlertDestination } from '../alerts/alert-destination.js';
import type { AlertMedium, OwnerTarget } from '../alerts/alert-medium.js';
import { createChannelPace } from '../alerts/channel-pace.js';
import { durationSchema } from '../config-fields.js';
import { type DestinationDeps, defineDestinationType, type OutboxDestination } from '../destination-type.js';
import { DEFAULT_RETRY_SCHEDULE } from '../webhook-destination.js';
import { createSlackApi, DEFAULT_SLACK_API_URL } from './slack-api.js';
import { changeMessage, describeSlackMessage, digestMessages, type SlackMessage } from './slack-blocks.js';
import {
  resolveSlackSecrets,
  type SlackDestinationConfig,
  slackRoutes,
  slackSchema,
  WEBHOOK_TARGET,
} from './slack-config.js';
import { postToWebhook } from './slack-webhook.js';

/** Per-attempt timeout (one event may post to a few targets, each waiting its channel's turn). */
export const DEFAULT_SLACK_TIMEOUT_MS = 60_000;
/** Events in flight at once. */
export const DEFAULT_SLACK_CONCURRENCY = 4;
/** Slack's pace: about one message a second per channel. */
export const DEFAULT_CHANNEL_INTERVAL_MS = 1_000;
/** How long an owner's Slack user id is kept. */
const USER_CACHE_MS = 3_600_000;

function createSlackDestination(
  config: SlackDestinationConfig,
  secrets: readonly string[],
  deps: DestinationDeps,
): OutboxDestination {
  const secret = secrets[0]!;
  const pace = createChannelPace(config.channel_interval ?? DEFAULT_CHANNEL_INTERVAL_MS, deps.now);
  const api =
    config.token === undefined
      ? undefined
      : createSlackApi({
          destination: config.name,
          apiUrl: config.api_url ?? DEFAULT_SLACK_API_URL,
          token: secret,
          tokenEnv: config.token.env,
          fetch: deps.fetch,
          now: deps.now,
        });
  const users = new Map<string, { at: number; target: Promise<OwnerTarget> }>();
  const medium: AlertMedium<SlackMessage> = {
    changeMessage: (change, route) => changeMessage(change, route, config.record_link),
    digestMessages: (changes) => digestMessages(changes),
    async post(target, message, signal) {
      try {
        await pace.turn(target, signal);
      } catch {
        return { outcome: 'retry', status: null, error: 'timed out waiting for the channel’s turn' };
      }
      if (api !== undefined) return api.postMessage(target, message, signal);
      return postToWebhook(
        {
          url: secret,
          urlEnv: config.webhook_url!.env,
          destination: config.name,
          fetch: deps.fetch,
          now: deps.now,
        },
        message,
        signal,
      );
    },
    async ownerTarget(email, signal) {
      if (api === undefined) return { unknown: 'an incoming webhook cannot send direct messages' };
      const key = email.toLowerCase();
      let held = users.get(key);
      if (held === undefined || deps.now() - held.at >= USER_CACHE_MS) {
        // A promise, so that owners' changes delivered at once ask Slack once.
        held = { at: deps.now(), target: api.lookupByEmail(email, signal) };
        users.delete(key);
        users.set(key, held);
        if (users.size > 10_000) users.delete(users.keys().next().value!);
      }
      const target = await held.target;
      if ('trouble' in target && users.get(key) === held) users.delete(key);
      return target;
    },
    describe: describeSlackMessage,
  };
  return createAlertDestination({
    name: config.name,
    routes: slackRoutes(config),
    medium,
    ownerCrm: config.owner_crm,
    targetLabel: (target) =>
      target === WEBHOOK_TARGET ? `the webhook's channel (${config.webhook_url!.env})` : target,
    deps,
  });
}

/** The `slack` destination type. */
export const SLACK_DESTINATION = defineDestinationType({
  type: 'slack',
  schema: slackSchema,
  dispatchSettings: (config) => ({
    timeoutMs: config.timeout ?? DEFAULT_SLACK_TIMEOUT_MS,
    scheduleMs: config.retry?.schedule ?? DEFAULT_RETRY_SCHEDULE.map((text) => durationSchema.parse(text)),
    concurrency: config.concurrency ?? DEFAULT_SLACK_CONCURRENCY,
    rate: undefined,
    kinds: config.kinds,
  }),
  create: createSlackDestination,
  resolveSecrets: resolveSlackSecrets,
});
