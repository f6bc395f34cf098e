/**
 * Which movers' new employers a CRM that only looks employers up (`employers: 'find'`, Salesforce) must
 * write anyway: a mover the CRM holds as a contact lands at its new company (design, issue 45), so its
 * employer is found, adopted or created; a mover it does not hold follows the CRM's rule for new persons
 * (a Lead, whose employer is never created). A contact is held when found by its carried id, its recorded
 * id, its key, or what a team typed (e-mail, LinkedIn URL); the CRM tells contacts by their ids
 * (`isContactId`).
 */
import type { CrmAdapter } from './crm-adapter.js';
import { findExisting, type Lookup, type RecordIdStore } from './find-existing.js';
import type { ContactRecord } from './map-records.js';

/** The companies (keys) of the movers in `contacts` that the CRM holds as contacts. */
export async function heldMoversAt(options: {
  readonly adapter: CrmAdapter;
  readonly store: RecordIdStore | undefined;
  readonly contacts: readonly ContactRecord[];
  readonly isContactId: (id: string) => boolean;
  readonly signal: AbortSignal;
}): Promise<Set<string>> {
  const { adapter, store, isContactId, signal } = options;
  const movers = options.contacts.filter(
    (record) => record.status === 'moved' && record.companyKey !== undefined,
  );
  const at = new Set<string>();
  for (const idProperty of new Set(movers.map((record) => record.idProperty))) {
    const group = movers.filter((record) => record.idProperty === idProperty);
    const found = await findExisting({
      adapter,
      store,
      object: 'contacts',
      inputs: group.map((record) => ({
        idProperty,
        key: record.key,
        carriedId: record.carriedId,
        readFirst: false,
        lookups: [
          ...(record.email !== undefined ? [{ field: 'email', value: record.email } satisfies Lookup] : []),
          ...(record.linkedinUrl !== undefined
            ? [{ field: 'linkedinUrl', value: record.linkedinUrl } satisfies Lookup]
            : []),
        ],
      })),
      signal,
    });
    const byKey = group.filter((record) => found.get(record.key)?.kind === 'by-key').map((r) => r.key);
    const read =
      byKey.length === 0 ? new Map() : await adapter.read('contacts', idProperty, byKey, [], signal);
    for (const record of group) {
      const it = found.get(record.key);
      const id = it?.kind === 'id' ? it.id : read.get(record.key)?.id;
      if (id !== undefined && isContactId(id)) at.add(record.companyKey!);
    }
  }
  return at;
}
