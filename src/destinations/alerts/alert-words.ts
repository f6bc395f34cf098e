/**
 * What an alert says: one sentence per change ("Jane Doe moved from Acme to Globex, now CRO"), a route's
 * template filled in (`{{name}}`, `{{company}}`, `{{previous_company}}`, `{{title}}`, `{{change}}`,
 * `{{watch}}`, any carried field), and a digest's lines grouped by watch and kind with a count line.
 * Plain text here; each destination type escapes for its medium.
 */
import type { AlertChange } from './alert-change.js';
import { CHANGE_KINDS } from './alert-routes.js';

/** How each kind reads in a digest's headings and count line. */
const KIND_LABELS: Readonly<Record<string, readonly [string, string]>> = {
  moved: ['moved', 'moved'],
  left: ['left', 'left'],
  returned: ['returned', 'returned'],
  title: ['new title', 'new titles'],
  new_person: ['new person', 'new people'],
  test: ['test', 'tests'],
};

/** The label of `kind` for `count` changes. */
export function kindLabel(kind: string, count: number): string {
  const labels = KIND_LABELS[kind] ?? [kind, kind];
  return count === 1 ? labels[0] : labels[1];
}

/** Text pieces of a sentence: plain, or a value (a name, a company) the medium may set in bold. */
export type Piece = string | { readonly value: string };

/** The sentence of a change, in pieces (values marked). */
export function changePieces(change: AlertChange): Piece[] {
  const name = { value: change.name };
  const company = change.company === '' ? 'a new company' : { value: change.company };
  const previous = change.previousCompany === '' ? undefined : { value: change.previousCompany };
  const title = change.title === '' ? [] : [`, now ${change.title}`];
  switch (change.kind) {
    case 'moved':
      return previous === undefined
        ? [name, ' moved to ', company, ...title]
        : [name, ' moved from ', previous, ' to ', company, ...title];
    case 'left':
      return previous === undefined ? [name, ' left their company'] : [name, ' left ', previous];
    case 'returned':
      return [name, ' is back at ', company, ...title];
    case 'title':
      return change.title === ''
        ? [name, ' has a new title at ', company]
        : [name, ' is now ', change.title, ' at ', company];
    case 'new_person':
      return [
        'New person found: ',
        name,
        ...(change.title === '' ? [] : [`, ${change.title}`]),
        ...(change.company === '' ? [] : [' at ', { value: change.company }]),
      ];
    case 'test':
      return ['hooksync test message from destination ', name];
    default:
      return [name, `: ${change.kind}`];
  }
}

/** The pieces joined, each value through `value` and each plain part through `plain`. */
export function joinPieces(
  pieces: readonly Piece[],
  value: (text: string) => string,
  plain: (text: string) => string,
): string {
  return pieces.map((piece) => (typeof piece === 'string' ? plain(piece) : value(piece.value))).join('');
}

/** The sentence of a change as plain text. */
export function changeSentence(change: AlertChange): string {
  return joinPieces(
    changePieces(change),
    (text) => text,
    (text) => text,
  );
}

/** A template's variables for a change: the carried fields, then the named ones (which win). */
export function templateValues(change: AlertChange): Record<string, string> {
  return {
    ...change.fields,
    name: change.name,
    company: change.company,
    previous_company: change.previousCompany,
    title: change.title,
    change: change.kind,
    watch: change.watch,
  };
}

/** `template` filled in: each `{{variable}}` replaced by its value through `escapeValue` (unknown: empty). */
export function fillTemplate(
  template: string,
  change: AlertChange,
  escapeValue: (text: string) => string = (text) => text,
): string {
  const values = templateValues(change);
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_all, key: string) =>
    escapeValue(values[key] ?? ''),
  );
}

/**
 * A change kind's place in a digest: the order of {@link CHANGE_KINDS}, any other kind (a play's `successor`)
 * after them. A digest reads the same whatever order its changes were handed on in (events are claimed in
 * batches, in no promised order).
 */
function kindRank(kind: string): number {
  const rank = (CHANGE_KINDS as readonly string[]).indexOf(kind);
  return rank === -1 ? CHANGE_KINDS.length : rank;
}

/** A digest's changes grouped: watch (by name) → kind (moved, left, …) → changes, in the order given. */
export function groupChanges(changes: readonly AlertChange[]): Map<string, Map<string, AlertChange[]>> {
  const groups = new Map<string, Map<string, AlertChange[]>>();
  const ordered = [...changes].sort(
    (a, b) => (a.watch < b.watch ? -1 : a.watch > b.watch ? 1 : 0) || kindRank(a.kind) - kindRank(b.kind),
  );
  for (const change of ordered) {
    const byKind = groups.get(change.watch) ?? new Map<string, AlertChange[]>();
    groups.set(change.watch, byKind);
    const list = byKind.get(change.kind) ?? [];
    byKind.set(change.kind, list);
    list.push(change);
  }
  return groups;
}

/** The count line of a digest: `12 changes: 5 moved, 4 left, 3 new people`. */
export function countLine(changes: readonly AlertChange[]): string {
  const counts = new Map<string, number>();
  for (const change of changes) counts.set(change.kind, (counts.get(change.kind) ?? 0) + 1);
  const parts = [...counts]
    .sort(([a], [b]) => kindRank(a) - kindRank(b))
    .map(([kind, count]) => `${count} ${kindLabel(kind, count)}`);
  const total = `${changes.length} ${changes.length === 1 ? 'change' : 'changes'}`;
  return `${total}: ${parts.join(', ')}`;
}
