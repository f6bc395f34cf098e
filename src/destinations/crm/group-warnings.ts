/**
 * A batch's values left out, grouped for one log line per object: each distinct warning with the number of
 * records it was found in. A warning that quotes the value (`"x" is not a number`) is grouped without it,
 * so that one field's bad values make one entry, and no value (personal data) reaches a warn line; an option
 * a field lacks keeps its value (one entry per option, which is what the user adds).
 */

/** One distinct warning of a batch and the records it was found in. */
export interface GroupedWarning {
  readonly warning: string;
  readonly records: number;
}

/** A warning that starts with the quoted value it is about. */
const QUOTED_VALUE = /^"(?:[^"\\]|\\.)*" (is not .*)$/s;

/** Groups the warnings of `records` by object, each object's warnings by their text without the value. */
export function groupWarnings(
  records: ReadonlyArray<{ readonly object: string; readonly warnings: readonly string[] }>,
): Map<string, GroupedWarning[]> {
  const byObject = new Map<string, Map<string, number>>();
  for (const record of records) {
    if (record.warnings.length === 0) continue;
    const counts = byObject.get(record.object) ?? new Map<string, number>();
    byObject.set(record.object, counts);
    // A record with the same warning twice counts once.
    for (const text of new Set(record.warnings.map(withoutValue)))
      counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  return new Map(
    [...byObject].map(([object, counts]) => [
      object,
      [...counts].map(([warning, n]) => ({ warning, records: n })).sort((a, b) => b.records - a.records),
    ]),
  );
}

function withoutValue(warning: string): string {
  const quoted = QUOTED_VALUE.exec(warning);
  // An option missing from a field is kept with its value: it is what the user adds to the field.
  if (quoted === null || quoted[1]!.startsWith('is not an option of ')) return warning;
  return `a value ${quoted[1]}`;
}
