/**
 * What the "typed CRM" suites deliver: the fixtures' company reveal and contact search, moved to another
 * company (its domain and name replaced), each call with a new job id: the same searches and reveals
 * bought twice.
 */
import { envelopeText } from '../../helpers/envelope-texts.js';

/** A company reveal of `domain` named `name` (the fixture's Acme Robotics otherwise). */
export function revealOf(domain = 'acme-robotics.com', name = 'Acme Robotics'): string {
  return envelopeText('company-reveal')
    .text.replaceAll('acme-robotics.com', domain)
    .replaceAll('Acme Robotics', name);
}

/** The fixture's contact search (Lena Vogel and Tobias Brandt at Acme Robotics), with a new job id. */
export function searchOf(): string {
  return envelopeText('search-contact').text;
}
