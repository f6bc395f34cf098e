/**
 * Values are checked against the CRM's field definitions before they are sent, because one bad value fails
 * a whole batch in some CRMs (HubSpot's e-mail-keyed upserts) and a record in any: the field must exist, an
 * e-mail must be one, an enumeration's value one of its options, a number a number, a date a day (sent as
 * midnight UTC). A bad value is left out with a warning, never sent. Each adapter maps its CRM's field types
 * onto the few types below (HubSpot's are these; Salesforce's picklist and Pipedrive's enum are an
 * `enumeration`, double and currency a `number`, boolean a `bool`, email an `email`); a text value longer
 * than the field's `maxLength` is cut to it.
 */
import { isEmail } from './normalize-keys.js';

/** What hooksync needs of a CRM's field (a HubSpot property, a Salesforce or Pipedrive field). */
export interface FieldDefinition {
  readonly name: string;
  /** string, number, date, datetime, enumeration, bool; any other type is sent unchecked. */
  readonly type: string;
  readonly options?: ReadonlyArray<{ readonly value: string }>;
  readonly hasUniqueValue?: boolean;
  /** Characters a text value may have (Salesforce's `length`); a longer one is cut to it. */
  readonly maxLength?: number;
}

/** `value` cut to `max` UTF-16 units, never inside a surrogate pair. */
export function cutToLength(value: string, max: number): string {
  if (value.length <= max) return value;
  let cut = '';
  for (const char of value) {
    if (cut.length + char.length > max) break;
    cut += char;
  }
  return cut;
}

/** The checked properties and, for each value left out, why. */
export interface CheckedValues {
  readonly properties: Record<string, string>;
  readonly warnings: string[];
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})/;

function checkDate(value: string): string | undefined {
  const day = DAY.exec(value);
  if (day !== null) {
    const ms = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().slice(0, 10);
  }
  if (/^\d+$/.test(value)) {
    const ms = Number(value);
    return ms % 86_400_000 === 0 ? new Date(ms).toISOString().slice(0, 10) : undefined;
  }
  return undefined;
}

/** Checks one value; returns the value to send (possibly reformatted) or why it is left out. */
export function checkValue(
  definition: FieldDefinition | undefined,
  name: string,
  value: string,
  crm = 'the CRM',
): { value: string } | { problem: string } {
  if (definition === undefined) return { problem: `property "${name}" does not exist in ${crm}` };
  if (name === 'email' && !isEmail(value)) return { problem: `"${value}" is not an e-mail address` };
  switch (definition.type) {
    case 'enumeration': {
      const options = new Set((definition.options ?? []).map((option) => option.value));
      const wrong = value.split(';').find((part) => !options.has(part));
      return wrong === undefined ? { value } : { problem: `"${wrong}" is not an option of ${name}` };
    }
    case 'number':
      return Number.isFinite(Number(value)) ? { value } : { problem: `"${value}" is not a number` };
    case 'date': {
      const day = checkDate(value);
      return day === undefined ? { problem: `"${value}" is not a date at midnight UTC` } : { value: day };
    }
    case 'datetime':
      return Number.isNaN(Date.parse(value)) ? { problem: `"${value}" is not a date-time` } : { value };
    case 'bool':
      return value === 'true' || value === 'false'
        ? { value }
        : { problem: `"${value}" is not true or false` };
    case 'email':
      return isEmail(value) ? { value } : { problem: `"${value}" is not an e-mail address` };
    default:
      return { value: definition.maxLength === undefined ? value : cutToLength(value, definition.maxLength) };
  }
}

/**
 * Checks every property of a record. `definitions` undefined means they could not be read (no schema
 * scope): values are then sent unchecked, as the export file would carry them. `crm` names it in warnings.
 */
export function checkValues(
  properties: Readonly<Record<string, string>>,
  definitions: ReadonlyMap<string, FieldDefinition> | undefined,
  crm = 'the CRM',
): CheckedValues {
  if (definitions === undefined) return { properties: { ...properties }, warnings: [] };
  const checked: Record<string, string> = {};
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(properties)) {
    const result = checkValue(definitions.get(name), name, value, crm);
    if ('value' in result) checked[name] = result.value;
    else warnings.push(result.problem);
  }
  return { properties: checked, warnings };
}
