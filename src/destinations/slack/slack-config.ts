/**
 * The `slack` destination's configuration: a bot token (`token`, Web API at `api_url`) with `routes`, or an
 * incoming webhook (`webhook_url`, its one channel), both from the environment only. A route's `channel`
 * is `#name` or a conversation id; `"to": "owner"` sends a direct message to the contact's owner, and
 * `fallback_channel` takes what has no owner Slack knows.
 */
import { z } from 'zod';
import {
  ALLOW_INSECURE_HTTP_VARIABLE,
  insecureHttpAllowanceOf,
  insecureHttpProblem,
} from '../../config/insecure-http.js';
import { type AlertRoute, routeMatchShape } from '../alerts/alert-routes.js';
import { destinationNameSchema, durationSchema, envRefSchema } from '../config-fields.js';

/** `#name` (lower-case, as Slack names channels) or an id (C…, G…, D…, or a user's U…/W…). */
export const channelSchema = z
  .string()
  .regex(
    /^(#[a-z0-9][a-z0-9._-]{0,79}|[CGDUW][A-Z0-9]{6,20})$/,
    'must be a channel "#name" (lower-case) or a Slack id such as C0123456789',
  );

const routeSchema = z.strictObject({
  ...routeMatchShape,
  channel: channelSchema.optional(),
  to: z.literal('owner').optional(),
  fallback_channel: channelSchema.optional(),
});

const httpUrl = z
  .string()
  .refine(
    (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
    'must be an http(s) URL',
  );

export const slackSchema = z
  .strictObject({
    name: destinationNameSchema,
    type: z.literal('slack'),
    token: envRefSchema.optional(),
    webhook_url: envRefSchema.optional(),
    api_url: httpUrl.optional(),
    kinds: z.array(z.literal('watch_change')).min(1).default(['watch_change']),
    routes: z.array(routeSchema).min(1).max(50).optional(),
    owner_crm: destinationNameSchema.optional(),
    record_link: z.string().min(1).max(500).optional(),
    channel_interval: durationSchema.optional(),
    timeout: durationSchema.optional(),
    retry: z.strictObject({ schedule: z.array(durationSchema).min(1).max(50) }).optional(),
    concurrency: z.number().int().min(1).max(64).optional(),
  })
  .superRefine((config, ctx) => {
    const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if ((config.token === undefined) === (config.webhook_url === undefined)) {
      issue(['token'], 'give either token (a bot token, Web API) or webhook_url (an incoming webhook)');
      return;
    }
    const webhook = config.webhook_url !== undefined;
    if (!webhook && config.routes === undefined) issue(['routes'], 'a bot token needs routes');
    for (const [index, route] of (config.routes ?? []).entries()) {
      const at = (field: string): PropertyKey[] => ['routes', index, field];
      if (webhook) {
        for (const field of ['channel', 'to', 'fallback_channel'] as const) {
          if (route[field] !== undefined)
            issue(at(field), 'an incoming webhook posts to its own channel only');
        }
        continue;
      }
      if ((route.channel === undefined) === (route.to === undefined)) {
        issue(at('channel'), 'give either channel or "to": "owner"');
      }
      if (route.fallback_channel !== undefined && route.to === undefined) {
        issue(at('fallback_channel'), 'only a route to the owner has a fallback');
      }
      if (route.to === 'owner' && route.digest !== undefined) {
        issue(at('digest'), 'a digest goes to a channel, not to owners');
      }
    }
  });

/** A `slack` destination as configured (credentials still as their variables' names). */
export type SlackDestinationConfig = z.output<typeof slackSchema>;

/** The webhook's own channel, as a route target. */
export const WEBHOOK_TARGET = 'webhook';

/** The routes as the alert core reads them (a webhook without routes: one route taking everything). */
export function slackRoutes(config: SlackDestinationConfig): AlertRoute[] {
  const routes = config.routes ?? [{}];
  return routes.map((route, index) => ({
    index,
    watches: route.watches,
    changes: route.changes,
    digest: route.digest,
    template: route.template,
    targets:
      config.webhook_url !== undefined
        ? { owner: false, fixed: [WEBHOOK_TARGET] }
        : route.to === 'owner'
          ? { owner: true, fixed: route.fallback_channel === undefined ? [] : [route.fallback_channel] }
          : { owner: false, fixed: [route.channel!] },
  }));
}

/** The credential from the environment, checked: [token] or [webhook URL]. Throws naming the field. */
export function resolveSlackSecrets(
  config: SlackDestinationConfig,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const field = config.token !== undefined ? 'token' : 'webhook_url';
  const ref = (config.token ?? config.webhook_url)!;
  const value = env[ref.env]?.trim();
  if (value === undefined || value === '') {
    throw new Error(`field ${field}: environment variable ${ref.env} is not set`);
  }
  if (field === 'webhook_url') {
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
      throw new Error(`field webhook_url: ${ref.env} must hold an http(s) URL`);
    }
    const url = new URL(value);
    // The URL's path is the secret: the message names its host only.
    if (insecureHttpProblem(url, insecureHttpAllowanceOf(env)) !== undefined) {
      throw new Error(
        `field webhook_url: ${ref.env} must be https:// unless its host is loopback; set ` +
          `${ALLOW_INSECURE_HTTP_VARIABLE}=${url.hostname} to accept plain http on a trusted network`,
      );
    }
  }
  return [value];
}
