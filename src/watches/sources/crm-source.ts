/**
 * A watch whose rows are a CRM's contacts (`from.<type>` of a type with a watch source role: HubSpot,
 * Salesforce, Pipedrive; docs/watches.md): checked at load against the destinations file (the destination
 * named exists and is of that type), and read at each pass of the cycle through the destination's contacts
 * reader (in the CRM's folder), page by page, as a file's rows are read line by line.
 *
 * The source maps onto the job-change request by itself: the e-mail, the LinkedIn URL, first and last name
 * as `contact_full_name`, the company's domain as `company_domain`; and carries the record's id
 * (`hs_object_id`, `sf_id`, `pd_id`) in custom_fields. The watch's own `map` and `carry` read the CRM's fields by
 * their names on top of that (a `map` of a field replaces the source's own), `set` applies as for a file.
 */

import type { Kysely } from 'kysely';
import type { AnswerLimits } from '../../client/answer-budget.js';
import { boundOutsideText } from '../../contract/outside-text.js';
import type {
  ConfiguredContactReader,
  ContactColumns,
  ContactReaderDeps,
  ContactRow,
  WatchSourceType,
} from '../../destinations/destination-type.js';
import type { ConfiguredDestination } from '../../destinations/load-destinations.js';
import { CrmError } from '../../errors.js';
import type { RequestPlanEntries } from '../../launch/build-request.js';
import type { SourceRow } from '../../launch/read-rows.js';
import type { Database } from '../../storage/database.js';

/** Cells the source makes itself (beside the CRM's own fields). */
export const FULL_NAME_CELL = 'contact_full_name';
export const DOMAIN_CELL = 'company_domain';

/** A watch's CRM source, validated: `from.<type>` naming a destination of that type. */
export interface CrmSource {
  readonly kind: 'crm';
  /** The destination type (`from.<type>`). */
  readonly type: string;
  /** How messages name the CRM ("HubSpot"). */
  readonly crm: string;
  readonly destination: string;
  /** The carried id's key and the cells the source maps by itself. */
  readonly reader: ContactColumns;
  /** The contacts the watch reads, at each pass. */
  readonly contacts: (deps: ContactReaderDeps) => AsyncGenerator<ContactRow>;
}

/** A CRM source that failed while read: the message names the CRM, the destination and the problem. */
export class WatchSourceError extends Error {
  override readonly name = 'WatchSourceError';
}

/** How messages name the source. */
export function crmSourceName(source: CrmSource): string {
  return `${source.crm} destination "${source.destination}"`;
}

/**
 * The destination a CRM source names, checked: throws Error with a `field …: …` message (the watch's
 * loader puts the watch in front) when the destinations file is missing, or the destination is not there
 * or not of the source's type.
 */
export function crmReaderFor(
  type: string,
  role: WatchSourceType,
  destination: string,
  destinations: readonly ConfiguredDestination[] | undefined,
): ConfiguredContactReader {
  const field = `from.${type}.destination`;
  if (destinations === undefined) {
    throw new Error(
      `field ${field}: a ${role.crm} source reads through a destination: give the destinations file (HOOKSYNC_DESTINATIONS or --destinations)`,
    );
  }
  const found = destinations.find((entry) => entry.name === destination);
  if (found === undefined) {
    const names = destinations.map((entry) => entry.name).join(', ') || 'none';
    throw new Error(
      `field ${field}: no destination "${destination}" in the destinations file (destinations: ${names})`,
    );
  }
  if (found.type !== type || found.contactReader === undefined) {
    throw new Error(`field ${field}: destination "${destination}" is of type ${found.type}, not ${type}`);
  }
  return found.contactReader;
}

/**
 * The source's own map and carry, with the watch's after them (a field mapped by the watch reads the
 * watch's column). Throws Error with a `field …: …` message for a carry key the source uses itself.
 */
export function crmEntries(
  reader: ContactColumns,
  entries: Required<Pick<RequestPlanEntries, 'map' | 'set' | 'carry'>>,
): RequestPlanEntries {
  if (entries.carry.some(([key]) => key === reader.idKey)) {
    throw new Error(`field carry.${reader.idKey}: the source carries the contact's own id under this key`);
  }
  const { columns } = reader;
  return {
    map: [
      ['professional_email', columns.email],
      ...(columns.linkedin === undefined ? [] : [['contact_linkedin', columns.linkedin] as const]),
      ['contact_full_name', FULL_NAME_CELL],
      ['company_domain', DOMAIN_CELL],
      ...entries.map,
    ],
    set: entries.set,
    carry: [...entries.carry, [reader.idKey, reader.idKey]],
  };
}

/** The CRM fields the watch's own map and carry read (the source's own cells left out). */
export function fieldsRead(reader: ContactColumns, entries: RequestPlanEntries): string[] {
  const own = new Set([FULL_NAME_CELL, DOMAIN_CELL, reader.idKey]);
  const columns = [...(entries.map ?? []), ...(entries.carry ?? [])].map(([, column]) => column);
  return [...new Set(columns.filter((column) => !own.has(column)))];
}

/**
 * The contacts as rows (`line` counts them, for messages), streamed; a CRM that refuses or cannot be reached
 * throws WatchSourceError naming it and its problem.
 */
export async function* crmRows(
  source: CrmSource,
  db: Kysely<Database>,
  answers?: AnswerLimits,
): AsyncGenerator<SourceRow & { readonly id?: string }> {
  const { reader } = source;
  const { columns } = reader;
  let line = 0;
  try {
    for await (const contact of source.contacts({ db, now: Date.now, fetch: globalThis.fetch, answers })) {
      line += 1;
      const cells: Record<string, string> = { ...contact.cells, [reader.idKey]: contact.id };
      const fullName = [contact.cells[columns.firstName], contact.cells[columns.lastName]]
        .filter((part) => part !== undefined && part !== '')
        .join(' ');
      if (fullName !== '') cells[FULL_NAME_CELL] = fullName;
      yield { line, cells, id: contact.id };
    }
  } catch (error) {
    if (error instanceof CrmError) {
      throw new WatchSourceError(`${crmSourceName(source)}: ${boundOutsideText(error.message)}`, {
        cause: error,
      });
    }
    throw error;
  }
}
