/**
 * The `email` destination's configuration: `smtp_url` from the environment (`smtps://` for implicit TLS;
 * `smtp://` with `?starttls=required` for STARTTLS; plain `smtp://` only to a loopback host or one named
 * in HOOKSYNC_ALLOW_INSECURE_HTTP), `from`, and routes to addresses or to the contact's owner
 * (`fallback_to` takes what has no owner), digests too.
 */
import { z } from 'zod';
import {
  ALLOW_INSECURE_HTTP_VARIABLE,
  insecureHttpAllowanceOf,
  isLoopbackHost,
} from '../../config/insecure-http.js';
import { type AlertRoute, routeMatchShape } from '../alerts/alert-routes.js';
import { destinationNameSchema, durationSchema, envRefSchema } from '../config-fields.js';

/** An e-mail address (a plain one: no display name). */
export const addressSchema = z
  .string()
  .max(254)
  .regex(/^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/, 'must be an e-mail address');

const routeSchema = z
  .strictObject({
    ...routeMatchShape,
    to: z.union([z.literal('owner'), z.array(addressSchema).min(1).max(50)]),
    fallback_to: z.array(addressSchema).min(1).max(50).optional(),
    subject: z.string().min(1).max(300).optional(),
  })
  .superRefine((route, ctx) => {
    if (route.fallback_to !== undefined && route.to !== 'owner') {
      ctx.addIssue({
        code: 'custom',
        path: ['fallback_to'],
        message: 'only a route to the owner has a fallback',
      });
    }
    if (route.to === 'owner' && route.digest !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['digest'],
        message: 'a digest goes to addresses, not to owners',
      });
    }
  });

export const emailSchema = z.strictObject({
  name: destinationNameSchema,
  type: z.literal('email'),
  smtp_url: envRefSchema,
  from: z
    .string()
    .max(300)
    .regex(
      /^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/,
      'must be an address, or "Name <address>"',
    ),
  kinds: z.array(z.literal('watch_change')).min(1).default(['watch_change']),
  routes: z.array(routeSchema).min(1).max(50),
  owner_crm: destinationNameSchema.optional(),
  record_link: z.string().min(1).max(500).optional(),
  timeout: durationSchema.optional(),
  retry: z.strictObject({ schedule: z.array(durationSchema).min(1).max(50) }).optional(),
  concurrency: z.number().int().min(1).max(16).optional(),
});

/** An `email` destination as configured (the SMTP URL still as its variable's name). */
export type EmailDestinationConfig = z.output<typeof emailSchema>;

/** The routes as the alert core reads them. */
export function emailRoutes(config: EmailDestinationConfig): AlertRoute[] {
  return config.routes.map((route, index) => ({
    index,
    watches: route.watches,
    changes: route.changes,
    digest: route.digest,
    template: route.template,
    targets:
      route.to === 'owner'
        ? { owner: true, fixed: route.fallback_to ?? [] }
        : { owner: false, fixed: route.to },
  }));
}

/** How to reach the SMTP server, read from `smtp_url`. */
export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  /** Implicit TLS (smtps://). */
  readonly secure: boolean;
  /** STARTTLS required (fail without it). */
  readonly requireTLS: boolean;
  readonly user: string | undefined;
  readonly pass: string | undefined;
}

/** The SMTP URL from the environment, checked (as [url]). Throws naming the field, never the value. */
export function resolveEmailSecrets(
  config: EmailDestinationConfig,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const name = config.smtp_url.env;
  const value = env[name]?.trim();
  if (value === undefined || value === '') {
    throw new Error(`field smtp_url: environment variable ${name} is not set`);
  }
  const settings = smtpSettings(value, name);
  const allowance = insecureHttpAllowanceOf(env);
  const { host } = settings;
  const allowed = allowance === true || (allowance !== false && allowance.includes(host));
  if (!settings.secure && !settings.requireTLS && !isLoopbackHost(host) && !allowed) {
    throw new Error(
      `field smtp_url: ${name} is plain SMTP to ${host}, which is not loopback: use smtps://, or ` +
        `smtp://…?starttls=required, or set ${ALLOW_INSECURE_HTTP_VARIABLE}=${host} on a trusted network`,
    );
  }
  return [value];
}

/** Reads an SMTP URL; throws `field smtp_url: …` naming the variable, never the value. */
export function smtpSettings(value: string, variable: string): SmtpSettings {
  if (!URL.canParse(value))
    throw new Error(`field smtp_url: ${variable} must hold an smtp:// or smtps:// URL`);
  const url = new URL(value);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new Error(`field smtp_url: ${variable} must hold an smtp:// or smtps:// URL`);
  }
  const secure = url.protocol === 'smtps:';
  const starttls = url.searchParams.get('starttls');
  if (starttls !== null && starttls !== 'required') {
    throw new Error(`field smtp_url: ${variable}'s starttls may only be "required"`);
  }
  const requireTLS = !secure && starttls === 'required';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    host,
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    requireTLS,
    user: url.username === '' ? undefined : decodeURIComponent(url.username),
    pass: url.password === '' ? undefined : decodeURIComponent(url.password),
  };
}
