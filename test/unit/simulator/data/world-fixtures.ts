/**
 * Shared pieces of the synthetic-world tests: a validated Search Contact request builder, a Usage object
 * for parsing whole outputs, and every person of a world through the public API.
 */
import {
  parseSearchContactRequest,
  type SearchContactRequest,
  type SearchContactRequestInput,
} from '../../../../src/contract/requests.js';
import type { SearchContactPerson, Usage } from '../../../../src/contract/resources.js';
import type { SyntheticWorld } from '../../../../src/simulator/data/create-synthetic-world.js';

/** A Search Contact request validated by the contract's own parser, as the simulator's server would. */
export function searchRequest(input: SearchContactRequestInput): SearchContactRequest {
  return parseSearchContactRequest(input);
}

/** A well-formed Usage, to parse the world's answers as whole outputs. */
export const USAGE: Usage = Object.freeze({
  total_usd: 0.1,
  balance_remaining_usd: 99.9,
  persons_count: 1,
  persons_usd: 0.1,
  phones_count: 0,
  phones_usd: 0,
  companies_count: 0,
  companies_usd: 0,
});

/** Every person of every world company, company by company, through domain searches. */
export function allPersons(world: SyntheticWorld): SearchContactPerson[] {
  return world.companies.flatMap(
    (company) => world.searchContacts(searchRequest({ domain: company.domain, page_size: 250 })).persons,
  );
}

/** True when `text` holds a character outside ASCII. */
export function hasNonAscii(text: string): boolean {
  return [...text].some((char) => char.codePointAt(0)! > 0x7f);
}
