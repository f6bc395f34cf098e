/**
 * What a CRM adapter gives the CRM core. The core (this folder) turns a batch of outbox events into
 * companies and contacts, keys them, dedupes them, plans each write under the write policy (reading first
 * for fill-empty), writes companies before the contacts that name them, links each contact to its company,
 * halves a batch the CRM refuses whole, dry-runs, adopts, counts. The adapter only speaks its CRM: its
 * client (auth, pacing, retries through `crm-http.ts`), its answers and their classification (a thrown
 * `CrmError`), its limits, its field definitions, and optionally search (adoption), field creation
 * (`setup`), owners and tasks. Where CRMs differ, the adapter has a method, never a flag the core branches
 * on (kysely's `DialectAdapter`): `link` (a link of its own), `bulkCalls` (a bulk path), `isContact` (new
 * persons without a held company are not contacts).
 *
 * Three CRMs are meant to fit:
 * - HubSpot: batch upsert by a unique property (100 per call), e-mail or custom keys, `objectWriteTraceId`
 *   to match a 207; the company link is a separate call (v4 associations: `link`).
 * - Salesforce: sObject Collections upsert by external id (200 per call, answered in order); the company
 *   link is a field of the contact's own write (`Account: { <ext id>: key }`, from `WriteRequest.company`).
 * - Pipedrive: no batch write and no upsert: `writeBatch: 1`, the adapter's `write` PATCHes by id or
 *   POSTs, ids come from a local key → id map (`crm_record_ids`) or search with `exact_match`; the company
 *   link is `org_id` in the person's write (the company's id, which the core passes as `company.id`).
 */
import type { FieldDefinition } from './check-values.js';

/** The two kinds of record every CRM destination writes (Salesforce: Account, Contact; Pipedrive: organization, person). */
export type CrmObject = 'companies' | 'contacts';

/** A record as the CRM holds it: its id, and the fields that were asked for (absent or null: empty). */
export interface HeldRecord {
  readonly id: string;
  readonly properties: Readonly<Record<string, string | null>>;
  /**
   * The CRM's own record as `read` got it, handed back with the write (`WriteRequest.current`) for what the
   * adapter's write needs beyond the fields (Pipedrive: the e-mail list a PATCH replaces whole, `org_id`).
   */
  readonly source?: unknown;
}

/** One record to write. */
export interface WriteRequest {
  /** The property the record is keyed by (`email`, `hooksync_domain`, an external id field). */
  readonly idProperty: string;
  /** The normalized key value (also among `properties` on create). */
  readonly key: string;
  /**
   * The CRM's own id of the record when the core found it (carried by the job, or adopted by search): the
   * adapter updates that very record and never creates one. Undefined: write by `key` (upsert, or, for a
   * CRM without upsert, the id it maps the key to, else a create).
   */
  readonly id: string | undefined;
  /** The fields to send: never empty values (the core drops them; "" would clear a field). */
  readonly properties: Readonly<Record<string, string>>;
  /**
   * A contact's company, for an adapter without `link` (the link is a field of the contact's own write): its
   * key (Salesforce's relationship by external id) and its id when written or found (Pipedrive's `org_id`).
   * Undefined for companies and unlinked contacts.
   */
  readonly company?: { readonly key: string; readonly id: string | undefined } | undefined;
  /**
   * What the core read of the record before planning this write (fill-empty, a dry run, an update-only
   * change): the record, or null when the CRM holds none; undefined when it did not read. The adapter
   * never reads it again (Salesforce tells a Contact from a Lead by its id; Pipedrive PATCHes by it).
   */
  readonly current?: HeldRecord | null | undefined;
}

/** What became of one write request: its record id and whether it was created, or why the CRM refused it. */
export type WriteResult =
  | {
      readonly ok: true;
      readonly id: string;
      readonly created: boolean;
      /** The CRM held every value already, so nothing was sent (an adapter that compares first): a skip. */
      readonly unchanged?: boolean;
    }
  | { readonly ok: false; readonly error: string };

/**
 * What a record can be searched by, as a sales team types it: a company's domain, its website's host
 * (normalized like a domain) and its exact name; a contact's e-mail, LinkedIn URL (normalized) and full name
 * (`first\tlast` as the service spells them: the adapter searches the spellings people type and compares
 * with `normalizeName`, case- and accent-insensitively).
 */
export type SearchField = 'domain' | 'website' | 'name' | 'email' | 'linkedinUrl' | 'fullName';

/** A record search found: its id, and the value it holds in the destination's key field (undefined: none). */
export interface SearchCandidate {
  readonly id: string;
  readonly key: string | undefined;
  /** A contact's company as the CRM links it (associated company, AccountId, org_id), when the answer says. */
  readonly companyId?: string | undefined;
  /** The domain (normalized) of the contact's company as the CRM holds it (Salesforce's Account.Website). */
  readonly companyDomain?: string | undefined;
  /** A contact's e-mail (normalized), when the answer says: at the company's domain, it is there. */
  readonly email?: string | undefined;
  /** A company's domain (normalized) as the record holds it: found by website or name but holding another domain, it is another company. */
  readonly domain?: string | undefined;
}

/** A contact to link with its company when the link is a call of its own (HubSpot's associations). */
export interface CompanyLink {
  readonly contactId: string;
  readonly companyId: string;
  /** A moved contact's new employer becomes its primary company. */
  readonly primary: boolean;
}

/** A CRM's calls and rules, as the core uses them. */
export interface CrmAdapter {
  /** The CRM's name, in messages ("HubSpot"). */
  readonly name: string;
  /**
   * Whether `read` by a key field finds what the CRM holds under it (HubSpot, Salesforce: the default), or
   * only the records the destination's key → id map knows (Pipedrive: `false`); then a contact keyed by its
   * e-mail is also searched by it.
   */
  readonly readsByKey?: boolean;
  /**
   * A CRM that charges per call (Pipedrive's tokens): what a planned write costs, and the total its calls
   * spent so far; the dry run reports what its reads spent plus its planned writes'.
   */
  readonly tokens?: { readonly perWrite: number; spent(): number };
  /** Records per write call and keys per read call (HubSpot 100/100, Salesforce 200/~150, Pipedrive 1/1). */
  readonly limits: { readonly writeBatch: number; readonly readBatch: number };
  /**
   * A CRM with a bulk path (Salesforce's Bulk API 2.0): the calls one bulk job makes for `records` records
   * of one object, or undefined at or below its line (they go in write calls of `limits.writeBatch`). The
   * core hands a bulk's records to one `write` whole (the adapter runs its job). Absent: no bulk path.
   */
  bulkCalls?(records: number): number | undefined;
  /**
   * A CRM where a new person whose company it does not hold is not made a contact (Salesforce's Leads,
   * unless `new_persons` is `contact`): whether record `id` is a contact (`003…`). With it, a company known
   * only as a contact's employer is looked up by key, linked when held and never created, except the new
   * employer of a mover held as a contact (held-movers.ts). Absent: every employer is written.
   */
  isContact?(id: string): boolean;
  /**
   * The records the CRM holds for `keys` (at most `limits.readBatch`) by `idProperty` (undefined: the keys
   * are the CRM's own record ids), with `properties`; keyed by the requested key (the adapter matches the
   * CRM's spelling back to it). Throws `CrmError`.
   */
  read(
    object: CrmObject,
    idProperty: string | undefined,
    keys: readonly string[],
    properties: readonly string[],
    signal: AbortSignal,
  ): Promise<Map<string, HeldRecord>>;
  /**
   * Writes `requests` (one object, one `idProperty`, keys unique, at most `limits.writeBatch`) in one call
   * where the CRM allows it; results in request order, matched by what was sent (never by a key the answer
   * may not echo). Throws `CrmError` for trouble that is not one record's; a `fail` thrown for the whole
   * call means the CRM refused the batch whole, and the core halves it until the record at fault stands alone.
   */
  write(object: CrmObject, requests: readonly WriteRequest[], signal: AbortSignal): Promise<WriteResult[]>;
  /**
   * Searches `object` by `field` for `values` (normalized; the adapter tries the spellings people type and
   * paces itself under the CRM's search limit; many values per call where the CRM allows it): value → the
   * records found, each with its value of `keyProperty`. Optional: without it nothing is adopted at sync
   * time (Salesforce upserts by external id alone; Pipedrive searches with `exact_match`).
   */
  search?(
    object: CrmObject,
    field: SearchField,
    values: readonly string[],
    keyProperty: string,
    signal: AbortSignal,
  ): Promise<Map<string, SearchCandidate[]>>;
  /**
   * Links contacts to their companies by a call of its own, after both are written (HubSpot's associations;
   * at most `limits.writeBatch` per call); per link undefined when done, or why it was refused. Absent: the
   * link is a field of the contact's own write (`WriteRequest.company`).
   */
  link?(links: readonly CompanyLink[], signal: AbortSignal): Promise<Array<string | undefined>>;
  /**
   * The CRM's field definitions of `object`, mapped onto the core's types (`check-values.ts`); undefined when
   * the token may not read them (values then go unchecked). The core caches them (`field-definitions.ts`).
   */
  fieldDefinitions(
    object: CrmObject,
    signal: AbortSignal,
  ): Promise<ReadonlyMap<string, FieldDefinition> | undefined>;
  /**
   * `destinations test`: one read that proves the credentials and the read permissions; says what it
   * checked. Throws `CrmError`.
   */
  check(signal: AbortSignal): Promise<string>;
  /**
   * The e-mail of the owner of a watched contact, from the fields its watch carried (the record id, perhaps
   * the owner's id); undefined when the contact has no owner with an e-mail. Optional (alert destinations'
   * `"to": "owner"`). Throws `CrmError`.
   */
  ownerEmail?(fields: Readonly<Record<string, string>>, signal: AbortSignal): Promise<string | undefined>;
  /** Follow-up tasks for a contact's owner (plays); optional: a CRM without it takes no `task` play. */
  readonly tasks?: CrmTasks | undefined;
}

/**
 * A follow-up task for a contact's owner (a watch's `task` play, docs/watches.md): HubSpot's `tasks`
 * object, a Salesforce Task, a Pipedrive activity of type task.
 */
export interface TaskRequest {
  /** The contact's record id in the CRM. */
  readonly contactId: string;
  /** The owner's id as the CRM names it (`hubspot_owner_id`, `OwnerId`, `owner_id`). */
  readonly ownerId: string;
  readonly subject: string;
  /** What changed, in plain text; ends with `marker`. */
  readonly body: string;
  /** When the task is due, epoch ms (Salesforce and Pipedrive keep the UTC day). */
  readonly dueAtMs: number;
  /** A text unique to the change, in the body: how a task whose answer was lost is found again. */
  readonly marker: string;
}

/**
 * A CRM's tasks role. No CRM offers an idempotency key for a task, so the play records the task's id and,
 * before a create whose earlier attempt may have gone through, looks for the task by owner, contact,
 * subject and `marker` (alerts-and-plays-api.md §4.2, §5.2, §6.2).
 */
export interface CrmTasks {
  /** The `custom_fields` key that carries the contact's id for this destination by default. */
  readonly idKey: string;
  /** The contact's owner id, or undefined when it has none. Throws `CrmError` (a 404 when not held). */
  ownerOf(contactId: string, signal: AbortSignal): Promise<string | undefined>;
  /** The id of the task made earlier for `task` (matched by its marker), or undefined. */
  find(task: TaskRequest, signal: AbortSignal): Promise<string | undefined>;
  /** Creates the task; its id. Throws `CrmError`. */
  create(task: TaskRequest, signal: AbortSignal): Promise<string>;
}
