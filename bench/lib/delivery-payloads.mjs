/**
 * The two callback bodies of the receiver benchmark, each split around its input.task.job_id so that every
 * delivery gets a fresh job_id without holding a copy of every body:
 * - reveal: test/fixtures/envelopes/company-reveal.json verbatim (~2.8 KB pretty-printed, int64 funding
 *   total included);
 * - search: a Search Contact page of 250 people (~340 KB compact), the fixture's two persons replicated
 *   with distinct ids, names and LinkedIn handles, output written before input (compresses about 43x);
 * - page: a realistic Search Contact page of 250 different people (~520 KB compact, compresses about 6x;
 *   bench/lib/realistic-payloads.mjs), output written before input.
 */
import { readFileSync } from 'node:fs';
import { createRandom, realisticSearchPage } from './realistic-payloads.mjs';

const FIXTURES = new URL('../../test/fixtures/envelopes/', import.meta.url);
const PLACEHOLDER = '00000000-0000-4000-8000-00000000b0d1';
/** People on the large page: the interface's largest page_size. */
export const SEARCH_PAGE_PERSONS = 250;

const FIRST_NAMES = [
  'Lena',
  'Tobias',
  'Zoë',
  'Łukasz',
  'Amélie',
  'Kenji',
  'Ana',
  'Siobhán',
  'Mateo',
  'Ingrid',
];
const LAST_NAMES = [
  'Vogel',
  'Brandt',
  'Nowak',
  'García',
  'Okafor',
  'Tanaka',
  'Müller',
  'Haugen',
  'Rossi',
  'Novák',
];

/** The payload kinds, in the order the tables show them. */
export const PAYLOAD_KINDS = ['reveal', 'search', 'page'];

/** A body template: body = prefix + job_id + suffix. */
export function loadPayloadTemplate(kind) {
  if (kind === 'reveal') {
    const text = readFileSync(new URL('company-reveal.json', FIXTURES), 'utf8');
    const fixtureJobId = JSON.parse(text).input.task.job_id;
    return split(kind, 'company reveal, ~2 KB', text, fixtureJobId);
  }
  if (kind === 'search') {
    const fixture = JSON.parse(readFileSync(new URL('search-contact.json', FIXTURES), 'utf8'));
    const envelope = structuredClone(fixture);
    envelope.input.task.page_size = SEARCH_PAGE_PERSONS;
    envelope.input.task.job_id = PLACEHOLDER;
    envelope.output.persons = Array.from({ length: SEARCH_PAGE_PERSONS }, (_, i) =>
      replicatePerson(fixture.output.persons[i % fixture.output.persons.length], i),
    );
    envelope.output.usage.persons_count = SEARCH_PAGE_PERSONS;
    envelope.output.usage.persons_usd = SEARCH_PAGE_PERSONS * 0.2;
    envelope.output.usage.total_usd = SEARCH_PAGE_PERSONS * 0.2;
    // output before input (JSON members have no order): the job_id then sits near the end, so that signing
    // a delivery hashes the long prefix once for the whole pool, and the pool can outlast the fastest server.
    const { input, output, ...rest } = envelope;
    return split(
      kind,
      `Search Contact page of ${SEARCH_PAGE_PERSONS} people`,
      JSON.stringify({ ...rest, output, input }),
      PLACEHOLDER,
    );
  }
  if (kind === 'page') {
    const text = realisticSearchPage(createRandom(2026), PLACEHOLDER, SEARCH_PAGE_PERSONS);
    return split(kind, `realistic Search Contact page of ${SEARCH_PAGE_PERSONS} people`, text, PLACEHOLDER);
  }
  throw new TypeError(`unknown payload kind ${kind}`);
}

function replicatePerson(person, i) {
  const first = FIRST_NAMES[i % FIRST_NAMES.length];
  const last = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length];
  const handle = `${first}-${last}-${i}`
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9-]/g, '');
  return {
    ...person,
    id: `c07c8b9a-a3b4-45c6-94a7-${String(i).padStart(12, '0')}`,
    first_name: first,
    last_name: last,
    linkedin_id: handle,
    linkedin_url: `https://www.linkedin.com/in/${handle}`,
  };
}

function split(kind, label, text, jobId) {
  const at = text.indexOf(jobId);
  if (at < 0 || text.indexOf(jobId, at + 1) >= 0) throw new Error(`${kind}: job_id must occur exactly once`);
  const prefix = Buffer.from(text.slice(0, at), 'utf8');
  const suffix = Buffer.from(text.slice(at + jobId.length), 'utf8');
  return { kind, label, prefix, suffix, bytes: prefix.length + jobId.length + suffix.length };
}
