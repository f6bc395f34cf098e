/**
 * What every destination type provides. A type is one file (webhook, file, and later ones such as
 * hubspot) registered in destination-types.ts: its configuration schema, whether its work comes from the
 * outbox (one event per stored job revision) or from a schedule of its own, and how it delivers.
 */

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { AnswerLimits } from '../client/answer-budget.js';
import type { Database } from '../storage/database.js';
import type { HooksyncDatabase } from '../storage/open-database.js';
import type { CrmTasks } from './crm/crm-adapter.js';
import type { EventChange } from './outbox.js';

/** Settings every destination has, whatever its type. */
export interface DestinationBase {
  readonly name: string;
  readonly type: string;
}

/** What an outbox destination is handed for one event. */
export interface OutboxDelivery {
  /** Stable across all attempts and replays of the event (the `webhook-id`). */
  readonly eventId: string;
  readonly jobId: string;
  readonly revision: number;
  readonly kind: string;
  readonly source: string;
  readonly status: string;
  /** The stored envelope, exactly as received (empty for a destination that reads rows only). */
  readonly envelopeText: string;
  /** The template's rows for this job, keyed by column header, when the destination names a template. */
  readonly rows?: ReadonlyArray<Readonly<Record<string, string>>>;
  /** A watch's change (kind `watch_change`): then envelopeText is empty and the event is the change. */
  readonly change?: EventChange;
}

/** What one attempt came to. */
export type AttemptResult =
  /** `detail`: what a check proved, for `destinations test` (a CRM's read of its token and scopes). */
  | { readonly outcome: 'delivered'; readonly status: number; readonly detail?: string }
  /** Worth retrying (network, timeout, 429, 5xx); `retryAfterMs` when the destination asked for a delay. */
  | {
      readonly outcome: 'retry';
      readonly status: number | null;
      readonly error: string;
      readonly retryAfterMs?: number;
    }
  /** Will not succeed on retry: the event fails at once. */
  | { readonly outcome: 'fail'; readonly status: number | null; readonly error: string }
  /** The destination said it is gone for now (410): pause it, keep the event pending. */
  | { readonly outcome: 'pause'; readonly status: number; readonly error: string }
  /** The destination asked for a pause of `waitMs` (a rate limit): back to the queue, not an attempt. */
  | { readonly outcome: 'wait'; readonly status: number; readonly error: string; readonly waitMs: number };

/** Collaborators a destination is created with. */
export interface DestinationDeps {
  readonly database: HooksyncDatabase;
  readonly logger: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  readonly fetch: typeof globalThis.fetch;
  /**
   * The owner lookup of the CRM destination named `name` (an alert destination's `owner_crm`), built on
   * the destination's own client; undefined when it has none.
   */
  readonly crmOwners?: ((name: string) => OwnerLookup | undefined) | undefined;
  /** serve's answer budget and the memory plan's cap on one CRM answer; none: each client's own cap. */
  readonly answers?: AnswerLimits | undefined;
}

/**
 * A CRM's owner of a watched contact: the owner's e-mail from the contact's carried fields (its record id,
 * perhaps its owner's id), undefined when it has none. Throws CrmError.
 */
export type OwnerLookup = (
  fields: Readonly<Record<string, string>>,
  signal: AbortSignal,
) => Promise<string | undefined>;

/** A destination fed by the outbox: one call per event attempt. */
export interface OutboxDestination {
  readonly kind: 'outbox';
  /** The export template whose rows go with each event, if any. */
  readonly template: string | undefined;
  /** Reads the job's normalized rows itself: its events wait until they are written (no template). */
  readonly normalized?: boolean;
  /**
   * Reads rows only, never the envelope (a CRM): the lane does not decode the stored envelopes of its
   * events, whose `envelopeText` is then empty.
   */
  readonly rowsOnly?: boolean;
  /** One attempt; never throws (trouble is a result). `signal` aborts it at the attempt timeout. */
  deliver(delivery: OutboxDelivery, signal: AbortSignal): Promise<AttemptResult>;
  /**
   * One attempt for several events at once (a type whose API takes batches); results in the same order.
   * The lane uses it, when present, with the type's `DispatchSettings.batch`. `settled`, when given, may
   * be called with the results of the leading deliveries once they are final (their records written),
   * in order and each delivery once, so that the lane records them while the rest goes on; the returned
   * array still holds every result.
   */
  deliverBatch?(
    deliveries: readonly OutboxDelivery[],
    signal: AbortSignal,
    settled?: (results: readonly AttemptResult[]) => void,
  ): Promise<AttemptResult[]>;
  /** One `ping` event, for `destinations test`. */
  ping(signal: AbortSignal): Promise<AttemptResult>;
  /** One-time work before the first delivery (a later type may create fields); optional. */
  setup?(): Promise<void>;
  /** Work on a schedule of its own besides the events (an alert destination's digests); optional. */
  readonly schedule?: ScheduledDestination | undefined;
  /** What delivering `delivery` would post, one line a message (`replay --dry-run`); optional. */
  preview?(delivery: OutboxDelivery, signal: AbortSignal): Promise<string[]>;
}

/** A destination that runs on a schedule of its own (the file drop). */
export interface ScheduledDestination {
  readonly kind: 'scheduled';
  /** Starts the schedule; the returned function stops it and waits for a run in progress. */
  start(): () => Promise<void>;
  /** One run now (`destinations deliver`), whatever the schedule. */
  runOnce(): Promise<string>;
}

/** A destination of any type, ready to work. */
export type Destination = OutboxDestination | ScheduledDestination;

/** The per-attempt knobs the dispatcher reads from an outbox destination's config. */
export interface DispatchSettings {
  readonly timeoutMs: number;
  readonly scheduleMs: readonly number[];
  readonly concurrency: number;
  readonly rate: { readonly requests: number; readonly perMs: number } | undefined;
  /** Job kinds it takes; undefined for all. */
  readonly kinds: readonly string[] | undefined;
  /**
   * Events per deliverBatch call, and how long to wait for a full batch; undefined: one event a call.
   * `fullAt`: events enough not to wait for more (default `size`; Salesforce's lane batch is a Bulk job's
   * worth, yet one collections call's worth of events is worth sending at once).
   */
  readonly batch?:
    | { readonly size: number; readonly lingerMs: number; readonly fullAt?: number | undefined }
    | undefined;
}

/** What every watch source's `from.<type>` object names: the destination of the destinations file it reads. */
export interface SourceBase {
  readonly destination: string;
}

/**
 * One contact as a watch's row: its record id, and its cells by the CRM's field names, with the company's
 * domain as `company_domain` (docs/watches.md).
 */
export interface ContactRow {
  readonly id: string;
  readonly cells: Readonly<Record<string, string>>;
}

/** What a contacts reader is built with: the database the destination's shared pace lives in. */
export interface ContactReaderDeps {
  readonly db: Kysely<Database>;
  readonly now: () => number;
  readonly fetch: typeof globalThis.fetch;
  /** serve's answer budget and the memory plan's cap on one CRM answer; none: each client's own cap. */
  readonly answers?: AnswerLimits | undefined;
}

/** What a watch maps by itself from a CRM's contact (docs/watches.md). */
export interface ContactColumns {
  /** The carried id's key in custom_fields (`hs_object_id`, `sf_id`, `pd_id`). */
  readonly idKey: string;
  /** The cells (the CRM's own field names) a watch maps by itself; `company_domain` is always that cell. */
  readonly columns: {
    readonly email: string;
    readonly linkedin: string | undefined;
    readonly firstName: string;
    readonly lastName: string;
  };
}

/** A CRM's contacts read page by page, paced and checked as the destination's own calls. */
export interface ContactReader<Q extends SourceBase> extends ContactColumns {
  /**
   * The contacts `query` (the watch's `from.<type>`, validated) selects, with the further `fields` the
   * watch's map and carry read, streamed through a client made for this reading (on the destination's
   * shared pace); throws CrmError when the CRM refuses or cannot be reached.
   */
  contacts(query: Q, fields: readonly string[], deps: ContactReaderDeps): AsyncGenerator<ContactRow>;
}

/** What a watch source role says of itself before any destination is configured. */
export interface WatchSourceType<Q extends SourceBase = SourceBase> {
  /** How messages name the CRM ("HubSpot"). */
  readonly crm: string;
  /** The `from.<type>` object (zod, the CRM's own rules: HubSpot's filter, Salesforce's WHERE clause). */
  readonly schema: z.ZodType<Q>;
  /** A contact field's name as the watch's map and carry may give it, and how a message names one. */
  readonly fieldName: RegExp;
  readonly fieldNoun: string;
}

/** A CRM type's watch source role (`from.<type>`, docs/watches.md): its schema and its contacts reader. */
export interface WatchSourceRole<C extends DestinationBase, Q extends SourceBase, S>
  extends WatchSourceType<Q> {
  reader(config: C, secrets: S): ContactReader<Q>;
}

/** A configured CRM destination's contacts, for a watch whose `from.<type>` names it. */
export interface ConfiguredContactReader extends ContactColumns {
  /**
   * The contacts `options` (the watch's `from.<type>` object as written, valid under the type's schema) and
   * `fields` select, read at each pass; throws Error when `options` is not valid.
   */
  select(
    options: unknown,
    fields: readonly string[],
  ): (deps: ContactReaderDeps) => AsyncGenerator<ContactRow>;
}

/**
 * A destination type as written in its folder (defineDestinationType erases its types): its schema, its
 * credentials `S` resolved from the config and the environment, how to build it from a validated config,
 * and the optional roles of a CRM.
 */
export interface DestinationTypeDefinition<C extends DestinationBase, S, Q extends SourceBase = SourceBase> {
  readonly type: string;
  /** Validates one entry of the file (secrets still as references). */
  readonly schema: z.ZodType<C>;
  /**
   * The credentials, at load: from `secret` or `token` (config-fields.ts, standardSecrets), or the type's own
   * (Salesforce's grants, each from the environment or a file). Throws Error with a `field …: …` message
   * naming sources, never values.
   */
  resolveSecrets(config: NoInfer<C>, env: Readonly<Record<string, string | undefined>>): S;
  /** The outbox settings of an event-driven type; undefined for a scheduled one. */
  dispatchSettings?(config: NoInfer<C>): DispatchSettings;
  create(config: NoInfer<C>, secrets: S, deps: DestinationDeps): Destination;
  /** A CRM type whose contacts a watch can read (`from.<type>`). */
  readonly watchSource?: WatchSourceRole<NoInfer<C>, Q, S> | undefined;
  /** A CRM type's owner lookup (alerts' `"to": "owner"`), on a client of the destination's own. */
  ownerLookup?(config: NoInfer<C>, secrets: S): (deps: ContactReaderDeps) => OwnerLookup;
  /** A CRM type's tasks role for a watch's `task` play: made per use, on the destination's shared pace. */
  crmTasks?(config: NoInfer<C>, secrets: S): (deps: ContactReaderDeps) => CrmTasks;
}

/** One entry of the destinations file validated by its type, its config held in the closures below. */
export interface TypedEntry {
  /** The validated config, its `secret` reference left out. */
  readonly config: DestinationBase;
  readonly dispatch: DispatchSettings | undefined;
  /**
   * The working parts, the credentials resolved from `env` and handed over (never exposed). Throws Error
   * with a `field …: …` message when a credential is missing or wrong.
   */
  bind(
    env: Readonly<Record<string, string | undefined>>,
  ): Pick<ConfiguredDestination, 'create' | 'contactReader' | 'ownerLookup' | 'crmTasks'>;
}

/** A destination type as the registry holds it, whatever its config's type. */
export interface DestinationType {
  readonly type: string;
  /** Validates one entry of the file (for its JSON Schema; `parse` validates with it). */
  readonly schema: z.ZodType<DestinationBase>;
  /** The watch source role's schema and names, when the type has one. */
  readonly watchSource: WatchSourceType | undefined;
  /** Validates `entry` with the type's schema: its problems, or the entry typed. */
  parse(entry: unknown): { success: true; data: TypedEntry } | { success: false; error: z.ZodError };
}

/** The registry's form of a type written with its own config, source query and credentials types. */
export function defineDestinationType<C extends DestinationBase, S, Q extends SourceBase = SourceBase>(
  definition: DestinationTypeDefinition<C, S, Q>,
): DestinationType {
  const { watchSource } = definition;
  return {
    type: definition.type,
    schema: definition.schema,
    watchSource:
      watchSource === undefined
        ? undefined
        : {
            crm: watchSource.crm,
            schema: watchSource.schema,
            fieldName: watchSource.fieldName,
            fieldNoun: watchSource.fieldNoun,
          },
    parse(entry) {
      const parsed = definition.schema.safeParse(entry);
      if (!parsed.success) return { success: false, error: parsed.error };
      // The secret's reference (perhaps a literal) stays out of what the type is handed to build with.
      const config: C = { ...parsed.data, secret: undefined };
      return {
        success: true,
        data: {
          config,
          dispatch: definition.dispatchSettings?.(config),
          bind: (env) => {
            const secrets = definition.resolveSecrets(parsed.data, env);
            return {
              create: (deps) => definition.create(config, secrets, deps),
              contactReader: watchSource === undefined ? undefined : bindReader(watchSource, config, secrets),
              ownerLookup: definition.ownerLookup?.(config, secrets),
              crmTasks: definition.crmTasks?.(config, secrets),
            };
          },
        },
      };
    },
  };
}

/** A source role's reader bound to one destination: each watch's `from.<type>` parsed into its query. */
function bindReader<C extends DestinationBase, Q extends SourceBase, S>(
  role: WatchSourceRole<C, Q, S>,
  config: C,
  secrets: S,
): ConfiguredContactReader {
  const reader = role.reader(config, secrets);
  return {
    idKey: reader.idKey,
    columns: reader.columns,
    select(options, fields) {
      const query = role.schema.parse(options);
      return (deps) => reader.contacts(query, fields, deps);
    },
  };
}

/** One destination, validated, ready to create. */
export interface ConfiguredDestination {
  readonly name: string;
  readonly type: string;
  /** Outbox settings (retry schedule, timeout, ...); undefined for a scheduled type. */
  readonly dispatch: DispatchSettings | undefined;
  /** The export template it uses, if any (checked to exist at load). */
  readonly template: string | undefined;
  /** Builds the working destination (secrets are handed over here, never exposed). */
  create(deps: DestinationDeps): Destination;
  /** A CRM type's reader of its contacts, for a watch's source (secrets handed over, never exposed). */
  readonly contactReader?: ConfiguredContactReader | undefined;
  /** A CRM type's owner lookup, for alert destinations naming it in `owner_crm`. */
  readonly ownerLookup?: ((deps: ContactReaderDeps) => OwnerLookup) | undefined;
  /** A CRM type's tasks role, for a watch's `task` play (secrets handed over, never exposed). */
  readonly crmTasks?: ((deps: ContactReaderDeps) => CrmTasks) | undefined;
}
