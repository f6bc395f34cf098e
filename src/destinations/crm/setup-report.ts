/**
 * What `destinations setup` did on a CRM (or, in a dry run, would do): the fields it created, the problems
 * it found, and the records it adopted (a company by its domain, a contact by its LinkedIn URL) or found
 * ambiguous.
 */

/** The report of one setup. */
export interface SetupReport {
  readonly properties: Array<{ object: 'companies' | 'contacts'; name: string; unique: boolean }>;
  /** A key field that exists without unique values: writes by it would be refused. */
  readonly problems: string[];
  /** What the user may want to do, not a failure (Pipedrive: a template field that does not exist). */
  readonly notes?: string[];
  readonly adopted: Array<{ domain: string; id: string }>;
  readonly ambiguous: Array<{ domain: string; ids: string[] }>;
  /** Companies that already carry the key. */
  alreadyKeyed: number;
  /** Contacts without an e-mail, found by their LinkedIn URL (keyed by the contact key). */
  readonly adoptedContacts: Array<{ linkedinUrl: string; id: string }>;
  readonly ambiguousContacts: Array<{ linkedinUrl: string; ids: string[] }>;
  contactsAlreadyKeyed: number;
  readonly dryRun: boolean;
  /** On a CRM that charges per call (Pipedrive): the tokens setup spent. */
  tokens?: number;
}

/** A report with nothing in it yet. */
export function emptySetupReport(dryRun: boolean): SetupReport {
  return {
    properties: [],
    problems: [],
    notes: [],
    adopted: [],
    ambiguous: [],
    alreadyKeyed: 0,
    adoptedContacts: [],
    ambiguousContacts: [],
    contactsAlreadyKeyed: 0,
    dryRun,
  };
}
