/**
 * Deep freezing of generated records: the world hands the same company objects to every caller, so
 * none may change them for the next one.
 */

/** Freezes `value` and every object and array inside it, then returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
