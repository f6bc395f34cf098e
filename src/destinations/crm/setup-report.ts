/**
 * What `destinations setup` did on a CRM (or, in a dry run, would do): the fields it created, the problems
 * it found, and the records it adopted (a company by its domain, a contact by its LinkedIn URL or e-mail) or
 * found ambiguous, and the API allocation it read.
 */

/** The report of one setup. */
export interface SetupReport {
  readonly properties: Array<{ object: 'companies' | 'contacts'; name: string; unique: boolean }>;
  /** A key field that exists without unique values: writes by it would be refused. */
  readonly problems: string[];
  /**
   * What leaves a field out of the writes but blocks nothing (Salesforce: a mapped field missing or not
   * updateable): printed as `warning:`, exit 0. `problems` are what blocks (a key field): exit 1.
   */
  readonly warnings?: string[];
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
  /** Persons found by the e-mail they were asked with (Salesforce: a Contact or a Lead), keyed by `key`. */
  readonly adoptedPersons?: Array<{ email: string; key: string; object: string; id: string }>;
  readonly ambiguousPersons?: Array<{ email: string; ids: string[] }>;
  /** The CRM's daily API allocation as setup read it (Salesforce's `/limits`). */
  allocation?: { max: number; remaining: number };
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
