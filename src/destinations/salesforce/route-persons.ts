/**
 * Which Salesforce object a person is written to (issue 25 §2; shared/docs/salesforce-api.md §3): a record
 * Salesforce already holds for the person's key (a Contact first, then a Lead) is updated where it is; a
 * net-new person becomes a Contact under its Account when `new_persons` is `contact-if-account` and the Account
 * exists (by key, or is written in the same batch), otherwise a Lead; `contact` and `lead` force the choice
 * for net-new persons. A Lead carries the company name in `Company`, since it has no Account.
 */

/** What a net-new person becomes. */
export type NewPersons = 'contact-if-account' | 'contact' | 'lead';

/** Where one person goes, and whether it is already there. */
export interface PersonRoute {
  readonly object: 'Contact' | 'Lead';
  /** The Id of the record that holds the person's key, when one does. */
  readonly id: string | undefined;
  /** Link the Contact to its Account (only when the Account is known to exist). */
  readonly linkAccount: boolean;
}

/** Chooses the object for one person. */
export function routePerson(options: {
  readonly policy: NewPersons;
  /** The Contact holding the person's key, if any. */
  readonly contactId: string | undefined;
  /** The Lead holding the person's key, if any. */
  readonly leadId: string | undefined;
  /** The person's Account exists (or is written in this batch), by the Account key. */
  readonly accountExists: boolean;
}): PersonRoute {
  const { policy, contactId, leadId, accountExists } = options;
  if (contactId !== undefined) return { object: 'Contact', id: contactId, linkAccount: accountExists };
  if (leadId !== undefined) return { object: 'Lead', id: leadId, linkAccount: false };
  if (policy === 'lead') return { object: 'Lead', id: undefined, linkAccount: false };
  if (policy === 'contact' || accountExists)
    return { object: 'Contact', id: undefined, linkAccount: accountExists };
  return { object: 'Lead', id: undefined, linkAccount: false };
}
