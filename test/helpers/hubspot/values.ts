/**
 * HubSpot's checks of property values on every write (shared/docs/hubspot-api.md §6): the property exists and is
 * writable, an e-mail is an e-mail, an enumeration value is an option's internal value, a date is at midnight
 * UTC, a number is a number. `""` clears any writable property and is never checked further.
 */
import type { PropertyValueError } from './errors.js';
import type { PropertyDefinition } from './properties.js';

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const EPOCH_MS = /^-?\d+$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** The same text as `message`, as HubSpot repeats it (captured bodies carry both). */
function item(name: string, error: string, message: string, portalId?: number): PropertyValueError {
  return portalId === undefined
    ? { isValid: false, message, error, name }
    : { isValid: false, message, error, name, localizedErrorMessage: message, portalId };
}

function checkDate(name: string, value: string): PropertyValueError | undefined {
  const day = DAY.exec(value);
  if (day) {
    const parsed = new Date(`${value}T00:00:00.000Z`);
    return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value
      ? item(name, 'INVALID_DATE', `${value} is not a valid date`)
      : undefined;
  }
  if (!EPOCH_MS.test(value)) return item(name, 'INVALID_DATE', `${value} is not a valid date`);
  // Epoch milliseconds; HubSpot names the time of day it found (§6: "1635535865 is at 22:18:55.865 UTC").
  const at = new Date(Number(value));
  const time = at.toISOString().slice(11, 23);
  return time === '00:00:00.000'
    ? undefined
    : item(name, 'INVALID_DATE', `${value} is at ${time} UTC, not midnight!`);
}

function checkValue(definition: PropertyDefinition, value: string): PropertyValueError | undefined {
  const { name } = definition;
  if (definition.type === 'enumeration') {
    const allowed = definition.options.map((option) => option.value);
    // Multi-select values are joined with ';' (§6).
    const parts = definition.fieldType === 'checkbox' ? value.split(';') : [value];
    const bad = parts.find((part) => !allowed.includes(part));
    return bad === undefined
      ? undefined
      : item(name, 'INVALID_OPTION', `${bad} was not one of the allowed options: [${allowed.join(', ')}]`);
  }
  if (definition.type === 'date') return checkDate(name, value);
  if (definition.type === 'datetime') {
    const valid = EPOCH_MS.test(value) || !Number.isNaN(Date.parse(value));
    return valid ? undefined : item(name, 'INVALID_DATETIME', `${value} was not a valid datetime.`);
  }
  if (definition.type === 'number') {
    return NUMBER.test(value) ? undefined : item(name, 'INVALID_LONG', `${value} was not a valid long.`);
  }
  if (definition.type === 'bool') {
    return value === 'true' || value === 'false'
      ? undefined
      : item(name, 'INVALID_BOOLEAN', `${value} was not a valid boolean.`);
  }
  if (name === 'email' && !EMAIL.test(value)) {
    return item(name, 'INVALID_EMAIL', `Email address ${value} is invalid`);
  }
  return undefined;
}

/** Every error in one input's properties, in the order they were given; empty when all are valid. */
export function checkPropertyValues(
  properties: Readonly<Record<string, unknown>>,
  definitions: ReadonlyMap<string, PropertyDefinition>,
  portalId: number,
): PropertyValueError[] {
  const errors: PropertyValueError[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    const definition = definitions.get(name);
    if (definition === undefined) {
      errors.push(item(name, 'PROPERTY_DOESNT_EXIST', `Property "${name}" does not exist`, portalId));
      continue;
    }
    if (definition.readOnlyValue) {
      // [inferred] "Read-only … properties will result in an error" (batch update reference); code not captured.
      errors.push(item(name, 'READ_ONLY_VALUE', `Property "${name}" is read-only`));
      continue;
    }
    const value = raw === null ? '' : String(raw);
    if (value === '') continue;
    const error = checkValue(definition, value);
    if (error) errors.push(error);
  }
  return errors;
}
