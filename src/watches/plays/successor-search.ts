/**
 * The successor play's pure parts: who left and from where (the change, and the job that found it), the
 * search for whoever holds the role now at the company left (its domain as last observed, the play's `set`
 * or the departed's seniority and department), and the persons of its answer worth reporting (at most
 * `max_per_change`, the most senior first, never the departed themselves).
 */
import { isPlainObject } from '../../contract/custom-fields.js';
import { SENIORITIES } from '../../contract/enums.js';
import type { WatchChange } from '../watch-store.js';
import type { SuccessorPlay } from './play-config.js';

/** Whom a successor replaces. */
export interface Departure {
  /** The departed's row key. */
  readonly key: string;
  readonly customFields: Readonly<Record<string, unknown>>;
  readonly name: string | null;
  readonly title: string | null;
  readonly email: string | null;
  readonly personId: string | null;
  readonly linkedinUrl: string | null;
  readonly seniority: string | null;
  readonly department: string | null;
  /** The company left, as last observed. */
  readonly companyDomain: string | null;
  readonly companyName: string | null;
  /** Where they are now (a move), if anywhere. */
  readonly nowAt: string | null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function objectOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function parsed(textValue: string | null): Record<string, unknown> {
  if (textValue === null) return {};
  try {
    return objectOf(JSON.parse(textValue));
  } catch {
    return {};
  }
}

/** Who left and from where: `change` (moved or left) and the stored envelope of the job that found it. */
export function departureOf(change: WatchChange, job: unknown): Departure {
  const envelope = objectOf(job);
  const request = objectOf(objectOf(envelope.input).task);
  const person = objectOf(objectOf(envelope.output).person);
  const before = parsed(change.before);
  const after = parsed(change.after);
  const first = text(person.first_name);
  const last = text(person.last_name);
  const name = [first, last].filter((part) => part !== null).join(' ') || text(request.contact_full_name);
  // The role left: the experience at the company left, when the answer lists it; else the person's own.
  const left = text(before.company_domain) ?? text(request.company_domain);
  const experiences = Array.isArray(person.experiences) ? person.experiences.map(objectOf) : [];
  const role = experiences.find(
    (e) => left !== null && text(e.company_domain)?.toLowerCase() === left.toLowerCase(),
  );
  return {
    key: change.row_key,
    customFields: parsed(change.custom_fields),
    name: name === '' ? null : name,
    title: text(before.title) ?? text(role?.title) ?? null,
    email: text(request.professional_email),
    personId: text(person.id),
    linkedinUrl: text(person.linkedin_url) ?? text(request.contact_linkedin),
    seniority: text(role?.seniority) ?? text(person.seniority),
    department: text(role?.department) ?? text(person.department),
    companyDomain: left,
    companyName: text(before.company_name) ?? text(role?.company_name) ?? null,
    nowAt: text(after.company_name) ?? text(after.company_domain),
  };
}

/** The search request for `departure`, or why none can be made. */
export function successorRequest(
  departure: Departure,
  play: SuccessorPlay,
): { readonly request: Record<string, unknown> } | { readonly problem: string } {
  if (departure.companyDomain === null) return { problem: 'the company left has no known domain' };
  const fields: Record<string, unknown> = {};
  if (play.set !== undefined) {
    for (const [field, value] of play.set) fields[field] = value;
  } else {
    if (departure.seniority !== null) fields.seniorities = [departure.seniority];
    if (departure.department !== null) fields.departments = [departure.department];
  }
  return {
    request: {
      domain: departure.companyDomain,
      ...fields,
      // One more than reported: the departed may still be listed there.
      page_size: play.maxPerChange + 1,
    },
  };
}

const RANK = new Map<string, number>(SENIORITIES.map((seniority, index) => [seniority, index]));

function rankOf(person: Record<string, unknown>): number {
  return RANK.get(text(person.seniority) ?? '') ?? SENIORITIES.length;
}

/** A successor as a change shows it. */
export interface Successor {
  readonly id: string;
  readonly summary: Record<string, unknown>;
}

/** The persons of a finished search worth reporting: most senior first, not the departed, at most `max`. */
export function successorsOf(job: unknown, departure: Departure, max: number): Successor[] {
  const envelope = objectOf(job);
  if (envelope.status !== 'SUCCEEDED') return [];
  const persons = objectOf(envelope.output).persons;
  if (!Array.isArray(persons)) return [];
  const departedName = departure.name?.toLowerCase() ?? null;
  const departedUrl = departure.linkedinUrl?.toLowerCase().replace(/\/+$/, '') ?? null;
  const found: Array<{ person: Record<string, unknown>; at: number }> = [];
  for (const [at, item] of persons.entries()) {
    const person = objectOf(item);
    const id = text(person.id);
    if (id === null || found.some((f) => f.person.id === id)) continue;
    const name = [text(person.first_name), text(person.last_name)].filter((p) => p !== null).join(' ');
    const url = text(person.linkedin_url)?.toLowerCase().replace(/\/+$/, '') ?? null;
    if (
      id === departure.personId ||
      (departedName !== null && name.toLowerCase() === departedName) ||
      (departedUrl !== null && url === departedUrl)
    )
      continue;
    found.push({ person, at });
  }
  found.sort((a, b) => rankOf(a.person) - rankOf(b.person) || a.at - b.at);
  const keep = ['id', 'first_name', 'last_name', 'title', 'seniority', 'department', 'linkedin_url'];
  return found.slice(0, max).map(({ person }) => ({
    id: text(person.id)!,
    summary: Object.fromEntries(keep.map((key) => [key, person[key] ?? null])),
  }));
}

/** The `after` of a successor change: the person, the company, and whom they replace. */
export function successorAfter(successor: Successor, departure: Departure): Record<string, unknown> {
  return {
    ...successor.summary,
    company_domain: departure.companyDomain,
    company_name: departure.companyName,
    replaces: {
      key: departure.key,
      custom_fields: departure.customFields,
      name: departure.name,
      title: departure.title,
    },
  };
}
