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
import type { ConfiguredDestination, DestinationDeps } from './destination-type.js';
import { DESTINATION_TYPES, loadDestinationType } from './destination-types.js';

export type { ConfiguredDestination } from './destination-type.js';

/** The whole file: its destinations, and a `$schema` an editor reads and hooksync ignores. */
const fileSchema = z.strictObject({
  $schema: z.string().optional(),
  destinations: z.array(z.looseObject({})),
});

type Env = Readonly<Record<string, string | undefined>>;

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
    const parsed = definition.parse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(`${where}, field ${fieldPath(issue.path)}: ${issue.message}`);
    }
    const typed = parsed.data;
    const config = typed.config as typeof typed.config & { template?: string };
    assertSecureUrls(config, allowance, where);
    if (seen.has(config.name)) throw new ConfigError(`${where}, field name: used by another destination`);
    seen.add(config.name);
    let bound: ReturnType<typeof typed.bind>;
    try {
      bound = typed.bind(env);
    } catch (error) {
      throw new ConfigError(`${where}, ${(error as Error).message}`);
    }
    if (config.template !== undefined) {
      try {
        await loadTemplate(config.template);
      } catch (error) {
        throw new ConfigError(`${where}, field template: ${(error as Error).message}`);
      }
    }
    const { create, ...roles } = bound;
    configured.push({
      name: config.name,
      type: definition.type,
      dispatch: typed.dispatch,
      template: config.template,
      create: (deps) => create({ ...deps, crmOwners: ownersOf(deps) }),
      ...roles,
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
            : `destination "${named}" is of type ${crm.type}, which has no owners`),
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
