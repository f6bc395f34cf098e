/**
 * The `salesforce` entry of the destinations file (issue 25 §1), validated whole at start: the org's login
 * URL (https unless loopback or named in HOOKSYNC_ALLOW_INSECURE_HTTP), the grant and where its credentials
 * come from (an environment variable or a file, never the file itself), the API version, the key fields, what a
 * net-new person becomes, the write policies, the share of the org's allocation, and the Bulk threshold.
 * Credentials are resolved once and kept out of every object that could be printed.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { insecureHttpProblem, parseInsecureHttpAllowance } from '../../config/insecure-http.js';
import { destinationNameSchema, durationSchema, envRefSchema, kindsSchema } from '../config-fields.js';
import { DEFAULT_MAX_SHARE } from './limit-info.js';
import { readPrivateKey, type SalesforceCredentials } from './salesforce-auth.js';

/** The API version pinned by default (Winter '25); collections upsert needs 46.0 or later. */
export const DEFAULT_API_VERSION = '62.0';
/** Records pending for the destination above which a Bulk API 2.0 job is used (Salesforce's own line, §1). */
export const DEFAULT_BULK_THRESHOLD = 2_000;

/** A credential's source: `{ "env": "NAME" }` or `{ "file": "/run/secrets/…" }`. */
const credentialSchema = z.union([envRefSchema, z.strictObject({ file: z.string().min(1) })]);
type CredentialRef = z.infer<typeof credentialSchema>;

const fieldName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,79}$/, 'must be a Salesforce field API name');

const authSchema = z.discriminatedUnion('grant', [
  z.strictObject({
    grant: z.literal('client_credentials'),
    client_id: credentialSchema,
    client_secret: credentialSchema,
  }),
  z.strictObject({
    grant: z.literal('jwt_bearer'),
    client_id: credentialSchema,
    username: credentialSchema,
    private_key: credentialSchema,
    audience: z.url().optional(),
  }),
]);

/** The schema of a `salesforce` entry. */
export const salesforceSchema = z.strictObject({
  name: destinationNameSchema,
  type: z.literal('salesforce'),
  login_url: z
    .url()
    .refine(
      (value) => /^https?:$/.test(new URL(value).protocol) && new URL(value).username === '',
      'must be an http(s) URL without credentials',
    ),
  auth: authSchema,
  /** The domain the org's instance_url must lie in (default the login host's: `salesforce.com`). */
  instance_domain: z
    .string()
    .regex(
      /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/,
      'must be a domain name such as "salesforce.com"',
    )
    .optional(),
  api_version: z
    .string()
    .regex(/^\d{2,3}\.0$/, 'must be a version such as "62.0"')
    .refine((value) => Number(value) >= 46, 'must be 46.0 or later (sObject Collections upsert)')
    .default(DEFAULT_API_VERSION),
  account_key: fieldName.default('Hooksync_Company_Id__c'),
  person_key: fieldName.default('Hooksync_Person_Id__c'),
  /** The key of `custom_fields` that carries a record's Salesforce Id. */
  id_field: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a custom_fields key (letters, digits, _ and -)')
    .default('sf_id'),
  new_persons: z.enum(['contact-if-account', 'contact', 'lead']).default('contact-if-account'),
  write: z.enum(['fill-empty', 'overwrite']).default('fill-empty'),
  fields: z.record(fieldName, z.enum(['overwrite', 'fill-empty', 'skip'])).default({}),
  max_share: z.number().gt(0).lte(1).default(DEFAULT_MAX_SHARE),
  bulk_threshold: z.number().int().min(1).max(5_000).default(DEFAULT_BULK_THRESHOLD),
  kinds: kindsSchema,
  timeout: durationSchema.optional(),
  retry: z.strictObject({ schedule: z.array(durationSchema).min(1).max(50) }).optional(),
  linger: durationSchema.optional(),
});

/** A `salesforce` destination as configured (credentials still as their sources). */
export type SalesforceDestinationConfig = z.output<typeof salesforceSchema>;

type Env = Readonly<Record<string, string | undefined>>;

function describeSource(ref: CredentialRef): string {
  return 'env' in ref ? ref.env : `the file ${ref.file}`;
}

/** Where the credentials come from, for messages (`SF_CLIENT_ID and SF_CLIENT_SECRET`); no values. */
export function credentialSources(config: SalesforceDestinationConfig): string {
  const refs =
    config.auth.grant === 'client_credentials'
      ? [config.auth.client_id, config.auth.client_secret]
      : [config.auth.client_id, config.auth.username, config.auth.private_key];
  return refs.map(describeSource).join(', ');
}

function resolve(ref: CredentialRef, env: Env, field: string, readFile: (path: string) => string): string {
  if ('env' in ref) {
    const value = env[ref.env]?.trim();
    if (value === undefined || value === '')
      throw new Error(`field auth.${field}: environment variable ${ref.env} is not set`);
    return value;
  }
  let text: string;
  try {
    text = readFile(ref.file);
  } catch (error) {
    throw new Error(
      `field auth.${field}: the file ${ref.file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (text.trim() === '') throw new Error(`field auth.${field}: the file ${ref.file} is empty`);
  return field === 'private_key' ? text : text.trim();
}

/**
 * The credentials of a validated entry, and the login URL's check against HOOKSYNC_ALLOW_INSECURE_HTTP.
 * Throws Error with a `field …: …` message that names sources, never values.
 */
export function resolveSalesforceCredentials(
  config: SalesforceDestinationConfig,
  env: Env,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): SalesforceCredentials {
  // The destinations file's check (load-destinations.ts) covers login_url too; this keeps the rule for callers of this function alone.
  const url = new URL(config.login_url);
  const problem = insecureHttpProblem(url, parseInsecureHttpAllowance(env.HOOKSYNC_ALLOW_INSECURE_HTTP));
  if (problem !== undefined) throw new Error(`field login_url: ${problem}`);
  const { auth } = config;
  const clientId = resolve(auth.client_id, env, 'client_id', readFile);
  if (auth.grant === 'client_credentials') {
    return {
      grant: 'client_credentials',
      clientId,
      clientSecret: resolve(auth.client_secret, env, 'client_secret', readFile),
    };
  }
  const privateKey = resolve(auth.private_key, env, 'private_key', readFile);
  try {
    readPrivateKey(privateKey);
  } catch (error) {
    throw new Error(
      `field auth.private_key: ${describeSource(auth.private_key)} ${(error as Error).message}`,
    );
  }
  const sandbox =
    /\.sandbox\.my\.salesforce\.com$/i.test(url.hostname) || /^test\.salesforce\.com$/i.test(url.hostname);
  return {
    grant: 'jwt_bearer',
    clientId,
    username: resolve(auth.username, env, 'username', readFile),
    privateKey,
    audience: auth.audience ?? (sandbox ? 'https://test.salesforce.com' : 'https://login.salesforce.com'),
  };
}
