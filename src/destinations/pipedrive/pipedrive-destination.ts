/**
 * The `pipedrive` destination: the CRM core (`crm/`) with the Pipedrive adapter. Verified organizations and
 * persons written one call a record (Pipedrive has no upsert and no batch), found by the id a job carried,
 * the destination's key → id map, or search with `exact_match`; paced across every process working for the
 * destination (shared-pace.ts: the burst window, and search's own), within a share of the day's tokens.
 */
import { z } from 'zod';
import { destinationNameSchema, envRefSchema, tokenSecret } from '../config-fields.js';
import { crmConfigShape, crmDispatchSettings, crmSyncSettings } from '../crm/crm-config.js';
import { CrmCounters, UNCOUNTED } from '../crm/crm-counters.js';
import { type CrmDestination, createCrmDestination } from '../crm/crm-destination.js';
import { createCrmHttp } from '../crm/crm-http.js';
import { createRecordIdStore } from '../crm/crm-record-ids.js';
import { type ContactReaderDeps, type DestinationDeps, defineDestinationType } from '../destination-type.js';
import { createSharedPace, type Pace } from '../shared-pace.js';
import { DailyBudget } from './daily-budget.js';
import { createPipedriveAdapter } from './pipedrive-adapter.js';
import {
  classifyTrouble,
  dailyBudget,
  PIPEDRIVE_RETRY_POLICY,
  TOKEN_COST,
  tokenCost,
} from './pipedrive-answer.js';
import { createPipedriveOwners } from './pipedrive-owners.js';
import { PIPEDRIVE_SHAPE } from './pipedrive-records.js';
import { setUpPipedrive } from './pipedrive-setup.js';
import { createPipedriveTasks } from './pipedrive-tasks.js';
import { createPipedrivePersonReader, PIPEDRIVE_SOURCE } from './read-persons.js';

/** Default pace: under a Lite API token's 20 requests per 2 s, with room for other apps. */
export const DEFAULT_PIPEDRIVE_RATE = '18/2s';
/** Search's own limit is 10 per 2 s on every plan (§5). */
export const SEARCH_RATE = { requests: 9, perMs: 2_000 } as const;

const fieldName = z.string().min(1).max(255);

const pipedriveSchema = z.strictObject({
  name: destinationNameSchema,
  type: z.literal('pipedrive'),
  base_url: z
    .string()
    .refine(
      (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
      'must be an http(s) URL (https://<company>.pipedrive.com)',
    ),
  // Only from the environment: a token in a file would be a secret in the tree.
  token: envRefSchema,
  org_key_field: fieldName.default('Domain'),
  person_key_field: fieldName.default('LinkedIn URL'),
  daily_token_share: z.number().gt(0).max(1).default(0.5),
  ...crmConfigShape(fieldName, DEFAULT_PIPEDRIVE_RATE),
});

/** A `pipedrive` destination as configured (the token still as its environment variable's name). */
export type PipedriveDestinationConfig = z.output<typeof pipedriveSchema>;

function createPipedriveDestination(
  config: PipedriveDestinationConfig,
  secrets: readonly string[],
  deps: DestinationDeps,
): CrmDestination {
  const counters = new CrmCounters(config.name, deps);
  const budget = new DailyBudget(config.daily_token_share, deps.now);
  const burst = createSharedPace(deps.database.db, config.name, config.rate, deps.now);
  const searches = createSharedPace(deps.database.db, `${config.name}#search`, SEARCH_RATE, deps.now);
  const paced = (paces: readonly Pace[], tokens: number): Pace => ({
    async wait(signal) {
      budget.check(tokens);
      for (const pace of paces) await pace.wait(signal);
    },
  });
  // The most a call may cost (§1): a search or a field list 20, a write 5 (a GET, 1, counted as a write).
  const [plain, costly, search] = [
    paced([burst], TOKEN_COST.write),
    paced([burst], TOKEN_COST.search),
    paced([searches, burst], TOKEN_COST.search),
  ];
  // The tokens spent: each answered call's cost (§1), counted (tokens_spent) and summed for the dry run.
  let spent = 0;
  const tallied: typeof globalThis.fetch = async (input, init) => {
    const response = await deps.fetch(input, init);
    if (response.ok) {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const tokens = tokenCost(init?.method ?? 'GET', url.pathname + url.search);
      spent += tokens;
      counters.add('tokens_spent', tokens);
    }
    return response;
  };
  const client = createCrmHttp({
    crm: 'Pipedrive',
    baseUrl: config.base_url,
    headers: { 'x-api-token': secrets[0]! },
    fetch: tallied,
    now: deps.now,
    paceFor: (path) => (path.includes('/search') ? search : path.endsWith('Fields') ? costly : plain),
    counter: counters,
    retry: PIPEDRIVE_RETRY_POLICY,
    classify: (answer) => classifyTrouble({ ...answer, tokenEnv: config.token.env }),
    answers: deps.answers,
    onHeaders(headers) {
      const left = dailyBudget(headers);
      if (left === undefined) return;
      budget.report(left);
      counters.dailyRemaining(left.remaining);
    },
  });
  const ids = createRecordIdStore(deps.database.db, config.name, deps.now);
  const adapter = {
    tasks: createPipedriveTasks(client),
    ...createPipedriveAdapter({
      client,
      lookUp: ids.lookUp,
      orgKeyField: config.org_key_field,
      personKeyField: config.person_key_field,
      spent: () => spent,
      now: deps.now,
    }),
  };
  const keyFields = { companies: config.org_key_field, contacts: config.person_key_field };
  return createCrmDestination({
    name: config.name,
    adapter,
    counters,
    templates: { companies: 'pipedrive-organizations', contacts: 'pipedrive-persons' },
    shape: PIPEDRIVE_SHAPE,
    settings: crmSyncSettings(
      config,
      { companyKey: config.org_key_field, contactKey: config.person_key_field },
      PIPEDRIVE_SHAPE.movedFields,
    ),
    setup: ({ templates, dryRun, signal }) =>
      setUpPipedrive({
        adapter,
        client,
        db: deps.database.db,
        store: ids,
        templates,
        shape: PIPEDRIVE_SHAPE,
        keyFields,
        dryRun,
        signal,
      }),
    deps,
  });
}

/**
 * A client of its own for a watch's source or play or an alert's owners, on the destination's shared pace
 * (Pipedrive sends each POST once). Its token spend is not counted in the destination's counters.
 */
function sideClientOf(
  config: PipedriveDestinationConfig,
  secrets: readonly string[],
  deps: ContactReaderDeps,
) {
  const pace = createSharedPace(deps.db, config.name, config.rate, deps.now);
  return createCrmHttp({
    crm: 'Pipedrive',
    baseUrl: config.base_url,
    headers: { 'x-api-token': secrets[0]! },
    fetch: deps.fetch,
    now: deps.now,
    paceFor: () => pace,
    counter: UNCOUNTED,
    retry: PIPEDRIVE_RETRY_POLICY,
    classify: (answer) => classifyTrouble({ ...answer, tokenEnv: config.token.env }),
    answers: deps.answers,
  });
}

/** The `pipedrive` destination type. */
export const PIPEDRIVE_DESTINATION = defineDestinationType({
  type: 'pipedrive',
  resolveSecrets: tokenSecret,
  schema: pipedriveSchema,
  dispatchSettings: (config) => crmDispatchSettings(config, 1),
  create: createPipedriveDestination,
  ownerLookup: (config, secrets) => (deps) =>
    createPipedriveOwners(sideClientOf(config, secrets, deps), deps.now),
  crmTasks: (config, secrets) => (deps) => createPipedriveTasks(sideClientOf(config, secrets, deps)),
  watchSource: {
    ...PIPEDRIVE_SOURCE,
    reader: (config, secrets) =>
      createPipedrivePersonReader((deps) => sideClientOf(config, secrets, deps), config.org_key_field),
  },
});
