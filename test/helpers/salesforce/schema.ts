/**
 * The org's metadata as `describe` shows it (REST API Developer Guide, sObject Describe; shared/docs/
 * salesforce-api.md §2-§3): Account, Contact and Lead with the standard fields the salesforce-* templates write,
 * their types, lengths, picklists and the flags a key needs (externalId, unique, caseSensitive). Custom fields
 * are added by tests, as an admin would in Setup; the org starts without them.
 */

/** The objects the stand-in serves. */
export type SObjectName = 'Account' | 'Contact' | 'Lead';
export const SOBJECT_NAMES: readonly SObjectName[] = ['Account', 'Contact', 'Lead'];

/** Field types as `describe` spells them (a subset). */
export type FieldType =
  | 'id'
  | 'string'
  | 'textarea'
  | 'email'
  | 'url'
  | 'phone'
  | 'picklist'
  | 'int'
  | 'double'
  | 'boolean'
  | 'reference'
  | 'datetime';

/** One picklist entry. */
export interface PicklistValue {
  value: string;
  label: string;
  active: boolean;
  defaultValue: boolean;
}

/** A field as `describe` answers it (the properties a client reads; the real answer has ~60). */
export interface FieldDefinition {
  name: string;
  label: string;
  type: FieldType;
  /** Characters for text types, 0 otherwise. */
  length: number;
  nillable: boolean;
  createable: boolean;
  updateable: boolean;
  custom: boolean;
  externalId: boolean;
  unique: boolean;
  caseSensitive: boolean;
  idLookup: boolean;
  /** Whether Salesforce fills it on create when none is sent (Lead.Status, system fields). */
  defaultedOnCreate: boolean;
  picklistValues: PicklistValue[];
  restrictedPicklist: boolean;
  relationshipName: string | null;
  referenceTo: string[];
}

/** What a test gives to define a field; the rest takes a custom text field's defaults. */
export type FieldInput = Partial<FieldDefinition> & { name: string; picklist?: readonly string[] };

/** An object's fields, by name. */
export type ObjectSchema = Map<string, FieldDefinition>;

/** The key prefix of each object's ids. */
export const ID_PREFIX: Record<SObjectName, string> = { Account: '001', Contact: '003', Lead: '00Q' };

const TEXT_TYPES: ReadonlySet<FieldType> = new Set([
  'string',
  'textarea',
  'email',
  'url',
  'phone',
  'picklist',
]);

/** Whether values of `type` are text (and have a length). */
export function isText(type: FieldType): boolean {
  return TEXT_TYPES.has(type);
}

/** A field definition from a test's input, with the defaults of a custom Text(255) field. */
export function field(input: FieldInput): FieldDefinition {
  const type = input.type ?? 'string';
  const picklistValues =
    input.picklistValues ??
    (input.picklist ?? []).map((value, index) => ({
      value,
      label: value,
      active: true,
      defaultValue: input.name === 'Status' && index === 0,
    }));
  const custom = input.custom ?? input.name.endsWith('__c');
  return {
    name: input.name,
    label: input.label ?? input.name.replace(/__c$/, '').replace(/_/g, ' '),
    type,
    length: input.length ?? (isText(type) ? (type === 'textarea' ? 32_000 : 255) : 0),
    nillable: input.nillable ?? true,
    createable: input.createable ?? true,
    updateable: input.updateable ?? true,
    custom,
    externalId: input.externalId ?? false,
    unique: input.unique ?? false,
    caseSensitive: input.caseSensitive ?? false,
    idLookup: input.idLookup ?? (input.externalId === true || type === 'id'),
    defaultedOnCreate: input.defaultedOnCreate ?? false,
    picklistValues,
    restrictedPicklist: input.restrictedPicklist ?? false,
    relationshipName: input.relationshipName ?? null,
    referenceTo: input.referenceTo ?? [],
  };
}

const SYSTEM: FieldInput[] = [
  {
    name: 'Id',
    type: 'id',
    length: 18,
    nillable: false,
    createable: false,
    updateable: false,
    defaultedOnCreate: true,
  },
  {
    name: 'CreatedDate',
    type: 'datetime',
    nillable: false,
    createable: false,
    updateable: false,
    defaultedOnCreate: true,
  },
  {
    name: 'LastModifiedDate',
    type: 'datetime',
    nillable: false,
    createable: false,
    updateable: false,
    defaultedOnCreate: true,
  },
  {
    name: 'SystemModstamp',
    type: 'datetime',
    nillable: false,
    createable: false,
    updateable: false,
    defaultedOnCreate: true,
  },
];

const INDUSTRIES = [
  'Agriculture',
  'Apparel',
  'Banking',
  'Biotechnology',
  'Chemicals',
  'Communications',
  'Construction',
  'Consulting',
  'Education',
  'Electronics',
  'Energy',
  'Engineering',
  'Entertainment',
  'Environmental',
  'Finance',
  'Food & Beverage',
  'Government',
  'Healthcare',
  'Hospitality',
  'Insurance',
  'Machinery',
  'Manufacturing',
  'Media',
  'Not For Profit',
  'Recreation',
  'Retail',
  'Shipping',
  'Technology',
  'Telecommunications',
  'Transportation',
  'Utilities',
  'Other',
];

const STANDARD: Record<SObjectName, FieldInput[]> = {
  Account: [
    { name: 'Name', label: 'Account Name', nillable: false },
    { name: 'Website', type: 'url' },
    { name: 'NumberOfEmployees', label: 'Employees', type: 'int' },
    // Unrestricted in a new org: any value is taken (the accounts template's note).
    { name: 'Industry', type: 'picklist', picklist: INDUSTRIES },
    { name: 'YearStarted', label: 'Year Started', length: 4 },
    { name: 'Description', type: 'textarea' },
    { name: 'BillingCountry', label: 'Billing Country', length: 80 },
    { name: 'Phone', type: 'phone', length: 40 },
  ],
  Contact: [
    { name: 'FirstName', label: 'First Name', length: 40 },
    { name: 'LastName', label: 'Last Name', length: 80, nillable: false },
    {
      name: 'Name',
      label: 'Full Name',
      length: 121,
      createable: false,
      updateable: false,
      nillable: false,
      defaultedOnCreate: true,
    },
    { name: 'Email', type: 'email', length: 80, idLookup: true },
    { name: 'Title', length: 128 },
    { name: 'Department', length: 80 },
    { name: 'MailingCity', label: 'Mailing City', length: 40 },
    { name: 'MailingState', label: 'Mailing State/Province', length: 80 },
    { name: 'MailingCountry', label: 'Mailing Country', length: 80 },
    { name: 'Description', label: 'Contact Description', type: 'textarea' },
    {
      name: 'AccountId',
      label: 'Account ID',
      type: 'reference',
      length: 18,
      relationshipName: 'Account',
      referenceTo: ['Account'],
    },
  ],
  Lead: [
    { name: 'FirstName', label: 'First Name', length: 40 },
    { name: 'LastName', label: 'Last Name', length: 80, nillable: false },
    {
      name: 'Name',
      label: 'Full Name',
      length: 121,
      createable: false,
      updateable: false,
      nillable: false,
      defaultedOnCreate: true,
    },
    { name: 'Company', length: 255, nillable: false },
    { name: 'Email', type: 'email', length: 80, idLookup: true },
    { name: 'Title', length: 128 },
    { name: 'Website', type: 'url' },
    { name: 'City', length: 40 },
    { name: 'State', label: 'State/Province', length: 80 },
    { name: 'Country', length: 80 },
    { name: 'Description', type: 'textarea' },
    {
      name: 'Status',
      type: 'picklist',
      length: 255,
      nillable: false,
      defaultedOnCreate: true,
      restrictedPicklist: true,
      picklist: [
        'Open - Not Contacted',
        'Working - Contacted',
        'Closed - Converted',
        'Closed - Not Converted',
      ],
    },
  ],
};

/** A new org's schema: the system and standard fields only. */
export function standardSchema(): Record<SObjectName, ObjectSchema> {
  const build = (name: SObjectName): ObjectSchema =>
    new Map([...SYSTEM, ...STANDARD[name]].map((input) => [input.name, field({ custom: false, ...input })]));
  return { Account: build('Account'), Contact: build('Contact'), Lead: build('Lead') };
}

/** The key fields and custom fields the salesforce-* templates write, as an admin following setup would add them. */
export const SET_UP_FIELDS: Record<SObjectName, FieldInput[]> = {
  Account: [
    { name: 'Hooksync_Company_Id__c', externalId: true, unique: true, caseSensitive: false },
    { name: 'LinkedIn_URL__c', type: 'url' },
  ],
  Contact: [
    { name: 'Hooksync_Person_Id__c', externalId: true, unique: true, caseSensitive: false },
    { name: 'LinkedIn_URL__c', type: 'url' },
    { name: 'Current_Company__c' },
    { name: 'Job_Change_Status__c' },
    { name: 'Previous_Company__c' },
    { name: 'Previous_Title__c' },
  ],
  Lead: [
    { name: 'Hooksync_Person_Id__c', externalId: true, unique: true, caseSensitive: false },
    { name: 'LinkedIn_URL__c', type: 'url' },
    { name: 'Job_Change_Status__c' },
    { name: 'Previous_Company__c' },
    { name: 'Previous_Title__c' },
  ],
};

/** `describe`'s answer for one object. */
export function describeObject(name: SObjectName, schema: ObjectSchema): Record<string, unknown> {
  return {
    name,
    label: name,
    labelPlural: name === 'Account' ? 'Accounts' : `${name}s`,
    keyPrefix: ID_PREFIX[name],
    custom: false,
    createable: true,
    updateable: true,
    queryable: true,
    fields: [...schema.values()].map((definition) => structuredClone(definition)),
  };
}
