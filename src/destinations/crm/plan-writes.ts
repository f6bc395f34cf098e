/**
 * Which properties a record's upsert sends under the write policy, and what that changes (for the dry run).
 * `overwrite` sends every mapped non-empty value; `fill-empty` sends only what HubSpot holds no value for
 * (so the record is read first); `skip` never sends. Nothing ever sends "" or null: that would clear.
 */

/** How one property is written. */
export type FieldPolicy = 'overwrite' | 'fill-empty' | 'skip';

/** One property's change, for the dry run's field-by-field report. */
export interface FieldChange {
  readonly property: string;
  readonly from: string | undefined;
  readonly to: string;
}

/** The upsert one record needs: `create` (not in HubSpot), `update`, or `skip` (nothing to send). */
export interface PlannedWrite {
  readonly action: 'create' | 'update' | 'skip';
  readonly properties: Record<string, string>;
  readonly changes: FieldChange[];
}

/**
 * Plans one record's write. `current` is the record as HubSpot holds it (undefined: not there, or not
 * read because no property is fill-empty); `policyOf` gives each property's policy; the key property is
 * always sent on create.
 */
export function planWrite(options: {
  readonly desired: Readonly<Record<string, string>>;
  readonly current: Readonly<Record<string, string | null>> | undefined;
  readonly exists: boolean;
  readonly keyProperty: string;
  readonly policyOf: (property: string) => FieldPolicy;
  /**
   * The record was found by its id, not by its key (carried, recorded, adopted): a key it lacks is written
   * even when nothing else is, so that it is found by its key from then on.
   */
  readonly stampKey?: boolean | undefined;
}): PlannedWrite {
  const { desired, current, exists, keyProperty, policyOf } = options;
  const properties: Record<string, string> = {};
  const changes: FieldChange[] = [];
  for (const [property, value] of Object.entries(desired)) {
    if (value === '') continue;
    const held = current?.[property] ?? undefined;
    const empty = held === undefined || held === '';
    const policy = property === keyProperty ? 'fill-empty' : policyOf(property);
    if (policy === 'skip' || (policy === 'fill-empty' && !empty)) continue;
    // Read first: a value the record already holds is not sent again.
    if (current !== undefined && held === value) continue;
    properties[property] = value;
    if (held !== value) changes.push({ property, from: empty ? undefined : held, to: value });
  }
  if (!exists) return { action: 'create', properties, changes };
  const sendsSomething = Object.keys(properties).some(
    (name) => name !== keyProperty || options.stampKey === true,
  );
  return sendsSomething
    ? { action: 'update', properties, changes }
    : { action: 'skip', properties: {}, changes: [] };
}

/** The policy function of a destination: `fields` overrides, then the moved defaults, then `write`. */
export function policyFor(options: {
  readonly write: 'overwrite' | 'fill-empty';
  readonly fields: Readonly<Record<string, FieldPolicy>>;
  /** Properties that overwrite unless `fields` says otherwise (title and company of a moved contact). */
  readonly overwriting?: readonly string[];
}): (property: string) => FieldPolicy {
  const overwriting = new Set(options.overwriting ?? []);
  return (property) => options.fields[property] ?? (overwriting.has(property) ? 'overwrite' : options.write);
}
