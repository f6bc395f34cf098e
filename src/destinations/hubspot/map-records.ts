/**
 * Template rows → the HubSpot records one batch writes. The mapping is the hubspot-companies and
 * hubspot-contacts templates' (one mapping for files and for the API); the rows carry a few internal
 * columns (`hooksync:…`: a colon is never in a HubSpot property name) for keys and the contact's company. Keys are normalized and
 * deduplicated across the batch, the newest event winning, because HubSpot refuses a whole batch that
 * names one key twice.
 */
import { normalizeDomain, normalizeEmail, normalizeLinkedinUrl } from './normalize-keys.js';

/** The internal columns added to the contacts template's rows. */
export const COMPANY_DOMAIN_COLUMN = 'hooksync:company_domain';
export const COMPANY_NAME_COLUMN = 'hooksync:company_name';

/** The job change properties whose value `moved` makes current again (they overwrite unless configured). */
export const MOVED_FIELDS = ['jobtitle', 'company'] as const;
/** What a `left` contact gets: its status only. */
export const LEFT_FIELDS = ['hooksync_job_change_status'] as const;

/** Where the keys live in HubSpot. */
export interface HubSpotKeys {
  /** The unique company property holding the normalized domain. */
  readonly companyKey: string;
  /** The unique contact property holding the normalized LinkedIn URL (contacts without e-mail). */
  readonly contactKey: string;
}

/** One company to upsert, and the events (indexes into the batch) that carry it. */
export interface CompanyRecord {
  readonly key: string;
  readonly properties: Record<string, string>;
  readonly events: number[];
}

/** One contact to upsert by `idProperty` (`email` or the contact key). */
export interface ContactRecord {
  readonly idProperty: string;
  readonly key: string;
  readonly properties: Record<string, string>;
  /** The job change status (`moved`, `left`, ...), '' when not a job change. */
  readonly status: string;
  /** Its company's key, to associate with; undefined for `left` or when unknown. */
  readonly companyKey: string | undefined;
  readonly events: number[];
}

/** A row that could not become a record (no key), counted and reported, never sent. */
export interface SkippedRecord {
  readonly object: 'companies' | 'contacts';
  readonly event: number;
  readonly reason: string;
}

/** One event's rows: the batch index it has and what its job yielded. */
export interface EventRows {
  readonly event: number;
  readonly companies: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly contacts: ReadonlyArray<Readonly<Record<string, string>>>;
}

/** What a batch writes, in order: companies, contacts, then their associations. */
export interface MappedBatch {
  readonly companies: CompanyRecord[];
  readonly contacts: ContactRecord[];
  readonly skipped: SkippedRecord[];
}

function mappedProperties(row: Readonly<Record<string, string>>): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const [name, value] of Object.entries(row)) {
    // "No value" is a property left out: "" would clear what HubSpot holds.
    if (!name.includes(':') && value.trim() !== '') properties[name] = value.trim();
  }
  return properties;
}

function put<R extends { readonly events: number[] }>(map: Map<string, R>, id: string, record: R): void {
  const older = map.get(id);
  // The newest event's record wins whole; the older events are delivered with it.
  if (older !== undefined) record.events.unshift(...older.events);
  map.delete(id);
  map.set(id, record);
}

/** Maps a batch's rows (events in claim order, oldest first) to deduplicated records. */
export function mapRecords(batch: readonly EventRows[], keys: HubSpotKeys): MappedBatch {
  const companies = new Map<string, CompanyRecord>();
  const contacts = new Map<string, ContactRecord>();
  const skipped: SkippedRecord[] = [];
  // A contact's employer (name and domain only) never replaces a revealed company's fuller record.
  const company = (
    event: number,
    properties: Record<string, string>,
    domain: string | undefined,
    weak = false,
  ) => {
    const key = normalizeDomain(domain);
    if (key === undefined) return undefined;
    const known = companies.get(key);
    if (weak && known !== undefined) known.events.push(event);
    else put(companies, key, { key, properties: { ...properties, [keys.companyKey]: key }, events: [event] });
    return key;
  };
  for (const { event, companies: companyRows, contacts: contactRows } of batch) {
    for (const row of companyRows) {
      const properties = mappedProperties(row);
      if (company(event, properties, row.domain) === undefined)
        skipped.push({ object: 'companies', event, reason: 'no usable domain' });
    }
    for (const row of contactRows) {
      const status = row.hooksync_job_change_status?.trim() ?? '';
      let properties = mappedProperties(row);
      const email = normalizeEmail(row.email);
      const linkedin = normalizeLinkedinUrl(row.hs_linkedin_url);
      if (email === undefined && linkedin === undefined) {
        skipped.push({ object: 'contacts', event, reason: 'neither an e-mail nor a LinkedIn URL' });
        continue;
      }
      delete properties.email;
      if (status === 'left') {
        properties = Object.fromEntries(
          LEFT_FIELDS.filter((name) => properties[name] !== undefined).map((name) => [
            name,
            properties[name]!,
          ]),
        );
      }
      // Only a contact keyed by LinkedIn gets the key property: stamping it on an e-mail contact could
      // collide with the LinkedIn-keyed contact of the same person (a unique value held twice).
      const [idProperty, key] = email !== undefined ? ['email', email] : [keys.contactKey, linkedin!];
      properties[idProperty] = key;
      const companyKey =
        status === 'left'
          ? undefined
          : company(
              event,
              mappedProperties({
                name: row[COMPANY_NAME_COLUMN] ?? row.company ?? '',
                domain: row[COMPANY_DOMAIN_COLUMN] ?? '',
              }),
              row[COMPANY_DOMAIN_COLUMN],
              true,
            );
      put(contacts, `${idProperty}\u0000${key}`, {
        idProperty,
        key,
        properties,
        status,
        companyKey,
        events: [event],
      });
    }
  }
  return { companies: [...companies.values()], contacts: [...contacts.values()], skipped };
}
