/**
 * Property definitions of the stand-in's portal: HubSpot's default contact and company properties that the
 * repo's `templates/hubspot-*.json` write (so a mapping can be checked for "property exists"), and the rules of
 * `POST /crm/v3/properties/{type}` (shared/docs/hubspot-api.md §1.1, §6).
 */
import { readFileSync } from 'node:fs';
import { type HubSpotErrorBody, hubSpotError } from './errors.js';

export type CrmObjectType = 'contacts' | 'companies';
export type PropertyType = 'string' | 'number' | 'date' | 'datetime' | 'enumeration' | 'bool';

/** One option of an enumeration; `value` is what the API takes, `label` what the UI shows (§6). */
export interface PropertyOption {
  value: string;
  label: string;
  displayOrder?: number;
  hidden?: boolean;
}

/** A property definition as `GET /crm/v3/properties/{type}/{name}` returns it (the fields the stand-in uses). */
export interface PropertyDefinition {
  name: string;
  label: string;
  type: PropertyType;
  fieldType: string;
  groupName: string;
  description: string;
  hasUniqueValue: boolean;
  options: PropertyOption[];
  /** HubSpot-owned values (hs_object_id, last-modified dates): writing one is an error. */
  readOnlyValue: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What a test passes to `defineProperty` (and what the create endpoint takes). */
export interface PropertyDefinitionInput {
  name: string;
  type: PropertyType;
  fieldType: string;
  label?: string;
  groupName?: string;
  description?: string;
  hasUniqueValue?: boolean;
  options?: readonly PropertyOption[];
  readOnlyValue?: boolean;
}

/** "Up to 10 unique value properties" per object (§1.1). */
export const MAX_UNIQUE_PROPERTIES = 10;

/** HubSpot's object type ids, used in its messages (`non-unique 0-2 property domain`). */
export const OBJECT_TYPE_IDS: Record<CrmObjectType, string> = { contacts: '0-1', companies: '0-2' };

const PROPERTY_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'date',
  'datetime',
  'enumeration',
  'bool',
]);

/** The industry codes HubSpot's company `industry` takes: the values of the repo's own industry map. */
function industryOptions(): PropertyOption[] {
  const url = new URL('../../../templates/maps/hubspot-industry.json', import.meta.url);
  const map = JSON.parse(readFileSync(url, 'utf8')) as { values: Record<string, string> };
  const byValue = new Map<string, string>();
  for (const [label, value] of Object.entries(map.values)) if (!byValue.has(value)) byValue.set(value, label);
  return [...byValue].map(([value, label], displayOrder) => ({ value, label, displayOrder, hidden: false }));
}

const text = (name: string, label: string): PropertyDefinitionInput => ({
  name,
  label,
  type: 'string',
  fieldType: 'text',
});
const readOnly = (name: string, type: PropertyType, fieldType: string): PropertyDefinitionInput => ({
  name,
  label: name,
  type,
  fieldType,
  readOnlyValue: true,
});

function defaultInputs(type: CrmObjectType): PropertyDefinitionInput[] {
  if (type === 'contacts') {
    return [
      text('email', 'Email'),
      text('firstname', 'First Name'),
      text('lastname', 'Last Name'),
      text('jobtitle', 'Job Title'),
      text('company', 'Company Name'),
      text('hs_linkedin_url', 'LinkedIn URL'),
      text('phone', 'Phone Number'),
      text('website', 'Website URL'),
      text('address', 'Street Address'),
      text('city', 'City'),
      text('state', 'State/Region'),
      text('zip', 'Postal Code'),
      text('country', 'Country/Region'),
      text('hubspot_owner_id', 'Contact owner'),
      {
        name: 'lifecyclestage',
        label: 'Lifecycle Stage',
        type: 'enumeration',
        fieldType: 'radio',
        options: [
          'subscriber',
          'lead',
          'marketingqualifiedlead',
          'salesqualifiedlead',
          'opportunity',
          'customer',
        ].map((value, displayOrder) => ({ value, label: value, displayOrder })),
      },
      { name: 'createdate', label: 'Create Date', type: 'datetime', fieldType: 'date' },
      readOnly('lastmodifieddate', 'datetime', 'date'),
      readOnly('hs_object_id', 'number', 'number'),
    ];
  }
  return [
    text('name', 'Company name'),
    text('domain', 'Company Domain Name'),
    text('website', 'Website URL'),
    text('linkedin_company_page', 'LinkedIn Company Page'),
    { name: 'numberofemployees', label: 'Number of Employees', type: 'number', fieldType: 'number' },
    { name: 'annualrevenue', label: 'Annual Revenue', type: 'number', fieldType: 'number' },
    {
      name: 'industry',
      label: 'Industry',
      type: 'enumeration',
      fieldType: 'select',
      options: industryOptions(),
    },
    {
      name: 'type',
      label: 'Type',
      type: 'enumeration',
      fieldType: 'select',
      options: ['PROSPECT', 'PARTNER', 'RESELLER', 'VENDOR', 'OTHER'].map((value, displayOrder) => ({
        value,
        label: value.charAt(0) + value.slice(1).toLowerCase(),
        displayOrder,
      })),
    },
    text('founded_year', 'Year Founded'),
    { name: 'description', label: 'Description', type: 'string', fieldType: 'textarea' },
    text('address', 'Street Address'),
    text('city', 'City'),
    text('state', 'State/Region'),
    text('zip', 'Postal Code'),
    text('country', 'Country/Region'),
    text('phone', 'Phone Number'),
    { name: 'createdate', label: 'Create Date', type: 'datetime', fieldType: 'date' },
    readOnly('hs_lastmodifieddate', 'datetime', 'date'),
    readOnly('hs_object_id', 'number', 'number'),
  ];
}

/** A full definition from an input, stamped at `nowMs`. */
export function toDefinition(input: PropertyDefinitionInput, nowMs: number): PropertyDefinition {
  const at = new Date(nowMs).toISOString();
  return {
    name: input.name,
    label: input.label ?? input.name,
    type: input.type,
    fieldType: input.fieldType,
    groupName: input.groupName ?? (input.name.startsWith('hs_') ? 'hubspot_info' : 'default_group'),
    description: input.description ?? '',
    hasUniqueValue: input.hasUniqueValue ?? false,
    options: (input.options ?? []).map((option, displayOrder) => ({
      displayOrder,
      hidden: false,
      ...option,
    })),
    readOnlyValue: input.readOnlyValue ?? false,
    createdAt: at,
    updatedAt: at,
  };
}

/** The default definitions of a fresh portal. */
export function defaultDefinitions(type: CrmObjectType, nowMs: number): Map<string, PropertyDefinition> {
  return new Map(defaultInputs(type).map((input) => [input.name, toDefinition(input, nowMs)]));
}

/** The property's wire shape (the API's `Property` object). */
export function definitionBody(definition: PropertyDefinition): Record<string, unknown> {
  const { readOnlyValue, ...rest } = definition;
  return {
    ...rest,
    displayOrder: -1,
    calculated: false,
    externalOptions: false,
    hidden: false,
    formField: !readOnlyValue,
    archived: false,
    modificationMetadata: { archivable: !readOnlyValue, readOnlyDefinition: readOnlyValue, readOnlyValue },
  };
}

/**
 * Checks a create-property request against the portal's definitions: an error body and its status, or the
 * input to define. Required fields: name, label, type, fieldType, groupName.
 */
export function checkPropertyCreate(
  body: unknown,
  existing: ReadonlyMap<string, PropertyDefinition>,
): { status: number; error: HubSpotErrorBody } | { input: PropertyDefinitionInput } {
  if (typeof body !== 'object' || body === null) {
    return { status: 400, error: hubSpotError('Invalid input JSON: expected an object', 'VALIDATION_ERROR') };
  }
  const raw = body as Record<string, unknown>;
  const missing = ['name', 'label', 'type', 'fieldType', 'groupName'].filter(
    (field) => typeof raw[field] !== 'string' || raw[field] === '',
  );
  if (missing.length > 0) {
    return {
      status: 400,
      error: hubSpotError(`Missing required fields: ${missing.join(', ')}`, 'VALIDATION_ERROR', {
        context: { missingFields: missing },
      }),
    };
  }
  const name = raw.name as string;
  if (!/^[a-z][a-z0-9_]*$/.test(name)) {
    return {
      status: 400,
      error: hubSpotError(
        `Property name '${name}' is invalid: use lower-case letters, digits and underscores, starting with a letter`,
        'VALIDATION_ERROR',
      ),
    };
  }
  if (!PROPERTY_TYPES.has(raw.type as string)) {
    return {
      status: 400,
      error: hubSpotError(`Unknown property type '${String(raw.type)}'`, 'VALIDATION_ERROR'),
    };
  }
  if (existing.has(name)) {
    // [inferred] 409 with the name in context; HubSpot's exact wording was not found in public captures.
    return {
      status: 409,
      error: hubSpotError(`Property named '${name}' already exists.`, 'OBJECT_ALREADY_EXISTS', {
        context: { name: [name] },
      }),
    };
  }
  const hasUniqueValue = raw.hasUniqueValue === true;
  const uniqueCount = [...existing.values()].filter((definition) => definition.hasUniqueValue).length;
  if (hasUniqueValue && uniqueCount >= MAX_UNIQUE_PROPERTIES) {
    return {
      status: 400,
      error: hubSpotError(
        `Can't create property '${name}': the limit of ${MAX_UNIQUE_PROPERTIES} unique value properties for this object has been reached`,
        'VALIDATION_ERROR',
      ),
    };
  }
  const options = Array.isArray(raw.options)
    ? (raw.options as unknown[]).flatMap((option) => {
        if (typeof option !== 'object' || option === null) return [];
        const { value, label } = option as Record<string, unknown>;
        return typeof value === 'string' ? [{ value, label: typeof label === 'string' ? label : value }] : [];
      })
    : [];
  if (raw.type === 'enumeration' && options.length === 0) {
    return {
      status: 400,
      error: hubSpotError(`Enumeration property '${name}' needs at least one option`, 'VALIDATION_ERROR'),
    };
  }
  return {
    input: {
      name,
      label: raw.label as string,
      type: raw.type as PropertyType,
      fieldType: raw.fieldType as string,
      groupName: raw.groupName as string,
      description: typeof raw.description === 'string' ? raw.description : '',
      hasUniqueValue,
      options,
    },
  };
}
