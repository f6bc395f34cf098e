/**
 * Template rows → the records one batch writes to a CRM. The mapping is the CRM's own templates' (one
 * mapping for files and for the API); the rows carry a few internal columns (`hooksync:…`: a colon is never
 * in a CRM field name) for keys and the contact's company. Keys are normalized and deduplicated across the
 * batch, the newest event winning, because a CRM refuses a batch that names one key twice (HubSpot refuses
 * it whole; Salesforce fails every such record).
 */
import {
  fullNameOf,
  normalizeDomain,
  normalizeEmail,
  normalizeLinkedinUrl,
  normalizePersonId,
} from './normalize-keys.js';

/** The internal columns added to the contacts template's rows. */
export const COMPANY_DOMAIN_COLUMN = 'hooksync:company_domain';
export const COMPANY_NAME_COLUMN = 'hooksync:company_name';
/** The e-mail a job change was asked with: what a team typed, searched by where it is no key (Salesforce). */
export const ASKED_EMAIL_COLUMN = 'hooksync:asked_email';
/** The service's person id, which tells a search's persons apart (a watch's `new_person`). */
export const PERSON_ID_COLUMN = 'hooksync:person_id';

/** Where the keys live in the CRM. */
export interface CrmKeys {
  /** The unique company field holding the normalized domain. */
  readonly companyKey: string;
  /** The unique contact field holding the normalized LinkedIn URL (contacts without e-mail). */
  readonly contactKey: string;
}

/**
 * Which template columns (the CRM's field names) carry what the core needs: the company's domain and
 * name, the contact's e-mail, LinkedIn URL and job change status, and which fields a moved or left contact
 * gets. HubSpot: `domain`, `name`, `email`, `hs_linkedin_url`, `hooksync_job_change_status`.
 */
export interface RecordShape {
  readonly domain: string;
  readonly companyName: string;
  /** The contact's e-mail field; e-mail contacts are keyed by it. Undefined: never keyed by e-mail (Salesforce). */
  readonly email: string | undefined;
  /**
   * The column carrying the service's person id, when contacts are keyed by it first (in the contact key
   * field), before their LinkedIn URL (Salesforce); undefined: not used.
   */
  readonly personId?: string | undefined;
  readonly linkedinUrl: string;
  /** The contact's first and last name fields: a person a sales team typed is found by them at its company. */
  readonly firstName?: string | undefined;
  readonly lastName?: string | undefined;
  readonly jobChangeStatus: string;
  /** The contact's current employer's name, when the template writes one. */
  readonly contactCompany: string | undefined;
  /** The fields whose value `moved` makes current again (they overwrite unless configured). */
  readonly movedFields: readonly string[];
  /** What a `left` contact gets: its status only. */
  readonly leftFields: readonly string[];
  /**
   * The column carrying the CRM's own record id, from the job's `custom_fields` (HubSpot's `Record ID` from
   * `hs_object_id`): the strongest key, never written as a field.
   */
  readonly recordId?: string | undefined;
}

/** One company to write, and the events (indexes into the batch) that carry it. */
export interface CompanyRecord {
  readonly key: string;
  /** The CRM record id the job carried, if any. */
  readonly carriedId?: string | undefined;
  readonly properties: Record<string, string>;
  readonly events: number[];
  /** Known only as a contact's employer (name and domain), not from a company's own row. */
  readonly employerOnly: boolean;
  /** Its name, to find a company a sales team typed with neither domain nor website. */
  readonly name?: string | undefined;
}

/** One contact to write by `idProperty` (the e-mail field or the contact key). */
export interface ContactRecord {
  readonly idProperty: string;
  readonly key: string;
  readonly properties: Record<string, string>;
  /** The job change status (`moved`, `left`, ...), '' when not a job change. */
  readonly status: string;
  /** Its company's key, to link with; undefined for `left` or when unknown. */
  readonly companyKey: string | undefined;
  readonly events: number[];
  /** The CRM record id the job carried, if any. */
  readonly carriedId?: string | undefined;
  /** Its normalized e-mail and LinkedIn URL, to find the record a sales team typed. */
  readonly email: string | undefined;
  readonly linkedinUrl: string | undefined;
  /** Its first and last name (`first\tlast`, normalize-keys' `fullNameOf`), to find it at its company. */
  readonly fullName?: string | undefined;
  /** Found or else failed, never created: every event of it is a watch's job change (map-records' updateOnly). */
  readonly updateOnly: boolean;
  /** One of its events is a watch's job change: the status overwrites too (sync-batch). */
  readonly change: boolean;
  /** Its company is its current employer, made primary: moved, or back at the company asked about. */
  readonly primary: boolean;
  /** Known only by the record id it carries (no key to write or remember it by). */
  readonly keyless: boolean;
}

/**
 * A row that could not become a record (no key), counted and reported, never sent; `fails`: its event
 * fails too (a watch's change whose contact cannot be found, replayable), instead of being delivered.
 */
export interface SkippedRecord {
  readonly object: 'companies' | 'contacts';
  readonly event: number;
  readonly reason: string;
  readonly fails?: boolean;
}

/** One event's rows: the batch index it has and what its job yielded. */
export interface EventRows {
  readonly event: number;
  readonly companies: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly contacts: ReadonlyArray<Readonly<Record<string, string>>>;
  /**
   * A watch's job change (crm-rows.ts changeRows): its contact is updated where the CRM holds it, never
   * created, and its status, title and company overwrite like a move's.
   */
  readonly updateOnly?: boolean;
  /** Why the event has no rows to write (a watch change whose job is gone): it fails. */
  readonly refused?: string;
}

/** What a batch writes, in order: companies, contacts, then their links. */
export interface MappedBatch {
  readonly companies: CompanyRecord[];
  readonly contacts: ContactRecord[];
  readonly skipped: SkippedRecord[];
}

function mappedProperties(row: Readonly<Record<string, string>>, skip?: string): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const [name, value] of Object.entries(row)) {
    // "No value" is a field left out: "" would clear what the CRM holds.
    if (!name.includes(':') && name !== skip && value.trim() !== '') properties[name] = value.trim();
  }
  return properties;
}

/** The record id a row carries (digits and letters only: an id, not a value typed in the wrong column). */
function carriedIdOf(row: Readonly<Record<string, string>>, column: string | undefined): string | undefined {
  const value = column === undefined ? undefined : row[column]?.trim();
  return value !== undefined && /^[A-Za-z0-9]{1,64}$/.test(value) ? value : undefined;
}

function put<R extends { readonly events: number[] }>(map: Map<string, R>, id: string, record: R): void {
  const older = map.get(id);
  // The newest event's record wins whole; the older events are delivered with it.
  if (older !== undefined) record.events.unshift(...older.events);
  map.delete(id);
  map.set(id, record);
}

/** Maps a batch's rows (events in claim order, oldest first) to deduplicated records. */
export function mapRecords(batch: readonly EventRows[], keys: CrmKeys, shape: RecordShape): MappedBatch {
  const companies = new Map<string, CompanyRecord>();
  const contacts = new Map<string, ContactRecord>();
  const skipped: SkippedRecord[] = [];
  // A contact's employer (name and domain only) never replaces a revealed company's fuller record.
  const company = (
    event: number,
    properties: Record<string, string>,
    domain: string | undefined,
    weak: boolean,
    carriedId?: string,
  ) => {
    const key = normalizeDomain(domain);
    if (key === undefined) return undefined;
    const known = companies.get(key);
    if (weak && known !== undefined) known.events.push(event);
    else
      put(companies, key, {
        key,
        properties: { ...properties, [keys.companyKey]: key },
        events: [event],
        ...(carriedId !== undefined ? { carriedId } : {}),
        employerOnly: weak,
        name: properties[shape.companyName],
      });
    return key;
  };
  for (const { event, companies: companyRows, contacts: contactRows, refused, ...rest } of batch) {
    const updateOnly = rest.updateOnly === true;
    if (refused !== undefined) {
      skipped.push({ object: 'contacts', event, reason: refused, fails: true });
      continue;
    }
    for (const row of companyRows) {
      const properties = mappedProperties(row, shape.recordId);
      if (
        company(event, properties, row[shape.domain], false, carriedIdOf(row, shape.recordId)) === undefined
      )
        skipped.push({ object: 'companies', event, reason: 'no usable domain' });
    }
    for (const row of contactRows) {
      const status = row[shape.jobChangeStatus]?.trim() ?? '';
      let properties = mappedProperties(row, shape.recordId);
      const carriedId = carriedIdOf(row, shape.recordId);
      const email = shape.email === undefined ? undefined : normalizeEmail(row[shape.email]);
      const personId = shape.personId === undefined ? undefined : normalizePersonId(row[shape.personId]);
      const linkedin = normalizeLinkedinUrl(row[shape.linkedinUrl]);
      // A watch's change names its contact by the id it carries, when it has no key.
      const keyless = email === undefined && personId === undefined && linkedin === undefined;
      if (keyless && !(updateOnly && carriedId !== undefined)) {
        const first = shape.email === undefined ? 'a person id' : 'an e-mail';
        skipped.push({
          object: 'contacts',
          event,
          reason: `neither ${first} nor a LinkedIn URL${updateOnly ? ' nor a carried record id: the contact cannot be found' : ''}`,
          ...(updateOnly ? { fails: true } : {}),
        });
        continue;
      }
      if (shape.email !== undefined) delete properties[shape.email];
      if (status === 'left') {
        properties = Object.fromEntries(
          shape.leftFields
            .filter((name) => properties[name] !== undefined)
            .map((name) => [name, properties[name]!]),
        );
      }
      // Only a contact keyed by LinkedIn gets the key field: stamping it on an e-mail contact could
      // collide with the LinkedIn-keyed contact of the same person (a unique value held twice).
      const [idProperty, key] =
        email !== undefined && shape.email !== undefined
          ? [shape.email, email]
          : [keys.contactKey, (personId ?? linkedin ?? carriedId)!];
      if (!keyless) properties[idProperty] = key;
      const employer = shape.contactCompany === undefined ? undefined : row[shape.contactCompany];
      const companyKey =
        status === 'left'
          ? undefined
          : company(
              event,
              mappedProperties({
                [shape.companyName]: row[COMPANY_NAME_COLUMN] ?? employer ?? '',
                [shape.domain]: row[COMPANY_DOMAIN_COLUMN] ?? '',
              }),
              row[COMPANY_DOMAIN_COLUMN],
              true,
            );
      const id = `${idProperty}\u0000${key}`;
      const older = contacts.get(id);
      put(contacts, id, {
        idProperty,
        key,
        properties,
        status,
        companyKey,
        events: [event],
        email: email ?? normalizeEmail(row[ASKED_EMAIL_COLUMN]),
        linkedinUrl: linkedin,
        fullName:
          shape.firstName === undefined || shape.lastName === undefined
            ? undefined
            : fullNameOf(row[shape.firstName], row[shape.lastName]),
        ...(carriedId !== undefined ? { carriedId } : {}),
        // One event that may create it (the job's own) lets it be created; one change makes it current.
        updateOnly: updateOnly && (older?.updateOnly ?? true),
        change: updateOnly || older?.change === true,
        primary: status === 'moved' || (updateOnly && status === 'no_change') || older?.primary === true,
        keyless,
      });
    }
  }
  return { companies: [...companies.values()], contacts: [...contacts.values()], skipped };
}
