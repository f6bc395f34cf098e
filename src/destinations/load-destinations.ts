/**
 * Reads the destinations file (HOOKSYNC_DESTINATIONS or `serve --destinations`) and validates it whole,
 * with zod, before anything starts: a problem is one line naming the destination, the field and what is
 * wrong. Secrets are resolved here (from the environment or the literal) and kept in closures, out of
 * every object that could be printed; no message ever carries a secret's value.
 */
import { z } from 'zod';
import {
  type InsecureHttpAllowance,
  insecureHttpAllowanceOf,
  insecureHttpProblem,
} from '../config/insecure-http.js';
import { fieldPath, readJsonConfigFile } from '../config/read-config-file.js';
import { ConfigError } from '../errors.js';
import { loadTemplate } from '../export/load-template.js';
import type { SecretRef } from './config-fields.js';
import type { ConfiguredDestination, DestinationDeps } from './destination-type.js';
import { DESTINATION_TYPES, loadDestinationType } from './destination-types.js';
import { webhookSecretKey } from './sign-standard-webhook.js';

export type { ConfiguredDestination } from './destination-type.js';

/** The whole file: its destinations, and a `$schema` an editor reads and hooksync ignores. */
const fileSchema = z.strictObject({
  $schema: z.string().optional(),
  destinations: z.array(z.looseObject({})),
});

type Env = Readonly<Record<string, string | undefined>>;

function resolveSecrets(refs: SecretRef | readonly SecretRef[], env: Env, where: string): string[] {
  const list = Array.isArray(refs) ? refs : [refs as SecretRef];
  return list.map((ref, index) => {
    const field = Array.isArray(refs) ? `secret[${index}]` : 'secret';
    let value: string | undefined;
    if (typeof ref === 'string') value = ref;
    else {
      value = env[ref.env]?.trim();
      if (value === undefined || value === '') {
        throw new ConfigError(`${where}, field ${field}: environment variable ${ref.env} is not set`);
      }
    }
    try {
      webhookSecretKey(value);
    } catch (error) {
      throw new ConfigError(`${where}, field ${field}: ${(error as Error).message}`);
    }
    return value;
  });
}

/** An API token (a type's `token`), from the environment only; any value, never checked or printed. */
function resolveToken(ref: { env: string }, env: Env, where: string): string {
  const value = env[ref.env]?.trim();
  if (value === undefined || value === '') {
    throw new ConfigError(`${where}, field token: environment variable ${ref.env} is not set`);
  }
  return value;
}

/** A field that names an address a destination calls (with its token or signature): `url` or `*_url`. */
function isUrlField(field: string): boolean {
  return field === 'url' || field.endsWith('_url');
}

/**
 * Throws ConfigError naming the destination and field when one of its URLs would carry its secret over
 * plain http to a host that is neither loopback nor named in HOOKSYNC_ALLOW_INSECURE_HTTP.
 */
function assertSecureUrls(config: object, allowance: InsecureHttpAllowance, where: string): void {
  for (const [field, value] of Object.entries(config)) {
    if (!isUrlField(field) || typeof value !== 'string' || !URL.canParse(value)) continue;
    const problem = insecureHttpProblem(new URL(value), allowance);
    if (problem !== undefined) throw new ConfigError(`${where}, field ${field}: ${problem}`);
  }
}

/**
 * Validates a parsed destinations document; `label` names it in messages (the file path). Every URL a
 * destination calls (`url` and any `*_url` field) follows the service's rule: https, unless loopback or
 * allowed by HOOKSYNC_ALLOW_INSECURE_HTTP in `env`.
 */
export async function parseDestinations(
  document: unknown,
  env: Env,
  label: string,
): Promise<ConfiguredDestination[]> {
  const top = fileSchema.safeParse(document);
  if (!top.success) {
    const issue = top.error.issues[0]!;
    const field = fieldPath(issue.path);
    throw new ConfigError(`${label}: ${field === '' ? 'the file' : `field ${field}`} ${issue.message}`);
  }
  const allowance = insecureHttpAllowanceOf(env);
  const seen = new Set<string>();
  const configured: ConfiguredDestination[] = [];
  for (const [index, entry] of top.data.destinations.entries()) {
    const name = typeof entry.name === 'string' ? entry.name : undefined;
    const where = `${label}: destination ${name === undefined ? `#${index + 1}` : `"${name}"`}`;
    const definition = typeof entry.type === 'string' ? await loadDestinationType(entry.type) : undefined;
    if (definition === undefined) {
      throw new ConfigError(
        `${where}, field type: must be one of ${Object.keys(DESTINATION_TYPES).join(', ')}`,
      );
    }
    const parsed = definition.schema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(`${where}, field ${fieldPath(issue.path)}: ${issue.message}`);
    }
    const config = parsed.data as typeof parsed.data & {
      secret?: SecretRef | SecretRef[];
      token?: { env: string };
      template?: string;
    };
    assertSecureUrls(config, allowance, where);
    if (seen.has(config.name)) throw new ConfigError(`${where}, field name: used by another destination`);
    seen.add(config.name);
    const resolveOwn = definition.resolveSecrets;
    let own: string[] | undefined;
    if (resolveOwn !== undefined) {
      try {
        own = resolveOwn(config, env);
      } catch (error) {
        throw new ConfigError(`${where}, ${(error as Error).message}`);
      }
    }
    const secrets =
      own !== undefined
        ? own
        : config.secret !== undefined
          ? resolveSecrets(config.secret, env, where)
          : config.token !== undefined
            ? [resolveToken(config.token, env, where)]
            : [];
    if (config.template !== undefined) {
      try {
        await loadTemplate(config.template);
      } catch (error) {
        throw new ConfigError(`${where}, field template: ${(error as Error).message}`);
      }
    }
    const { secret: _secret, ...visible } = config;
    configured.push({
      name: config.name,
      type: definition.type,
      dispatch: definition.dispatchSettings?.(visible),
      template: config.template,
      create: (deps) => definition.create(visible, secrets, { ...deps, crmOwners: ownersOf(deps) }),
      contactReader:
        definition.contactReader === undefined ? undefined : definition.contactReader(visible, secrets),
      ownerLookup: definition.ownerLookup?.(visible, secrets),
      crmTasks: definition.crmTasks === undefined ? undefined : definition.crmTasks(visible, secrets),
    });
  }
  checkOwnerCrms(top.data.destinations, configured, label);
  // An alert destination's owners come from the CRM destination it names, on that one's own client.
  function ownersOf(deps: DestinationDeps) {
    return (name: string) =>
      configured
        .find((other) => other.name === name)
        ?.ownerLookup?.({ db: deps.database.db, fetch: deps.fetch, now: deps.now, answers: deps.answers });
  }
  return configured;
}

/** An alert destination's `owner_crm` must name a CRM destination of the file that can find owners. */
function checkOwnerCrms(
  entries: ReadonlyArray<Record<string, unknown>>,
  configured: readonly ConfiguredDestination[],
  label: string,
): void {
  for (const entry of entries) {
    const named = entry.owner_crm;
    if (typeof named !== 'string') continue;
    const crm = configured.find((other) => other.name === named);
    if (crm?.ownerLookup === undefined) {
      throw new ConfigError(
        `${label}: destination "${String(entry.name)}", field owner_crm: ` +
          (crm === undefined
            ? `no destination "${named}" in the destinations file`
            : `destination "${named}" is of type ${crm.type}, which has no owners (hubspot, salesforce, pipedrive)`),
      );
    }
  }
}

/** Reads and validates the destinations file at `path`; throws ConfigError with one clear line. */
export async function loadDestinations(path: string, env: Env): Promise<ConfiguredDestination[]> {
  const label = `destinations file ${path}`;
  const document = readJsonConfigFile(path, label);
  return parseDestinations(document, env, label);
}
