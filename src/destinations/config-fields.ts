/**
 * Field schemas shared by the destination types: names, durations as hooksync writes them elsewhere,
 * job kinds, and secrets given as `{ "env": "NAME" }` or a literal `whsec_…` string.
 */
import { z } from 'zod';
import { parseDuration } from '../config/parse-duration.js';
import { parseRate, RATE_SYNTAX } from '../config/parse-rate.js';
import type { WindowRate } from '../contract/rate-window.js';
import { webhookSecretKey } from './sign-standard-webhook.js';

/** The job kinds a destination may filter on. */
export const DESTINATION_KINDS = ['company_reveal', 'job_change', 'search_contact', 'unknown'] as const;

/** A destination's name: what the CLI, metrics and logs call it. */
export const destinationNameSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/i,
    'must be 1-63 letters, digits, "-" or "_", starting with a letter or digit',
  );

/** A duration (`500ms`, `2s`, `10m`) read as milliseconds. */
export const durationSchema = z.string().transform((text, ctx) => {
  try {
    return parseDuration(text);
  } catch (error) {
    ctx.issues.push({ code: 'custom', input: text, message: (error as Error).message });
    return z.NEVER;
  }
});

/**
 * A rate: `"90/10s"` (at most 90 in any 10 s), read as `{ requests, perMs }`. The earlier form of webhook
 * destinations, `{ "requests": 90, "per": "10s" }`, is still accepted.
 */
const legacyRateSchema = z
  .strictObject({ requests: z.number().int().min(1), per: durationSchema })
  .refine((rate) => rate.per > 0, { message: 'must be longer than 0s', path: ['per'] });

export const rateSchema = z.unknown().transform((value, ctx): WindowRate => {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const legacy = legacyRateSchema.safeParse(value);
    if (legacy.success) return { requests: legacy.data.requests, perMs: legacy.data.per };
    for (const issue of legacy.error.issues) {
      ctx.issues.push({ code: 'custom', input: value, path: issue.path, message: issue.message });
    }
    return z.NEVER;
  }
  try {
    return parseRate(value as string);
  } catch {
    ctx.issues.push({ code: 'custom', input: value, message: `must be ${RATE_SYNTAX}` });
    return z.NEVER;
  }
});

/** `{ "env": "NAME" }`: a value read from the environment only (a token in a file would be a secret in the tree). */
export const envRefSchema = z.strictObject({
  env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
});

/** Where a secret comes from; its value is resolved once, at start, and never printed. */
export const secretRefSchema = z.union([
  envRefSchema,
  z.string().refine((value) => value.startsWith('whsec_'), {
    // Never echo the value: it may be a secret typed in the wrong place.
    message: 'must be { "env": "NAME" } or a literal string starting with whsec_',
  }),
]);

/** A secret reference as configured. */
export type SecretRef = z.infer<typeof secretRefSchema>;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A signing type's `secret` (one reference or a list), each from the environment or the literal, checked as
 * a signing key. Throws Error naming the field, never the value.
 */
export function signingSecrets(
  config: { readonly secret: SecretRef | readonly SecretRef[] },
  env: Env,
): string[] {
  const refs = config.secret;
  const list: readonly SecretRef[] = Array.isArray(refs) ? refs : [refs as SecretRef];
  return list.map((ref, index) => {
    const field = Array.isArray(refs) ? `secret[${index}]` : 'secret';
    let value: string | undefined;
    if (typeof ref === 'string') value = ref;
    else {
      value = env[ref.env]?.trim();
      if (value === undefined || value === '') {
        throw new Error(`field ${field}: environment variable ${ref.env} is not set`);
      }
    }
    try {
      webhookSecretKey(value);
    } catch (error) {
      throw new Error(`field ${field}: ${(error as Error).message}`);
    }
    return value;
  });
}

/** An API type's `token`, from the environment only, as a list of one; any value, never checked or printed. */
export function tokenSecret(config: { readonly token: { readonly env: string } }, env: Env): string[] {
  const value = env[config.token.env]?.trim();
  if (value === undefined || value === '') {
    throw new Error(`field token: environment variable ${config.token.env} is not set`);
  }
  return [value];
}

/** A type without credentials. */
export const noSecrets = (): string[] => [];

/**
 * The kinds a destination takes (default: every job kind): the job kinds, and `watch_change`, a watch's
 * change (docs/watches.md), which only a destination naming it receives (every kind, the default, means
 * every job kind). At least one when given.
 */
export const kindsSchema = z
  .array(z.enum([...DESTINATION_KINDS, 'watch_change']))
  .min(1)
  .optional();
