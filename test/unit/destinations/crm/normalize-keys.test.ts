/** The keys records are upserted by: one company or person, one key, whatever the spelling. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fullNameOf,
  isEmailAt,
  normalizeDomain,
  normalizeEmail,
  normalizeLinkedinUrl,
  normalizeName,
} from '../../../../src/destinations/crm/normalize-keys.js';

describe('normalizeDomain', () => {
  it.each([
    ['acme.com', 'acme.com'],
    ['ACME.com', 'acme.com'],
    ['  www.Acme.com. ', 'acme.com'],
    ['https://www.acme.com/about?x=1', 'acme.com'],
    ['http://acme.com:8080', 'acme.com'],
    ['www2.acme.co.uk', 'acme.co.uk'],
    ['shop.acme.com', 'shop.acme.com'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });

  it.each([[''], ['   '], ['localhost'], ['10.0.0.1'], ['http://'], [undefined]])('refuses %j', (input) => {
    expect(normalizeDomain(input)).toBeUndefined();
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        const once = normalizeDomain(domain);
        if (once !== undefined) expect(normalizeDomain(once)).toBe(once);
      }),
    );
  });
});

describe('normalizeEmail', () => {
  it('trims and lower-cases', () => {
    expect(normalizeEmail('  Ann.Lee@Acme.COM ')).toBe('ann.lee@acme.com');
  });
  it.each([['ann@acme'], ['ann acme.com'], ['@acme.com'], ['example.lcom@'], ['']])('refuses %j', (input) => {
    expect(normalizeEmail(input)).toBeUndefined();
  });
});

describe('normalizeLinkedinUrl', () => {
  it.each([
    ['https://www.linkedin.com/in/ann-lee', 'https://www.linkedin.com/in/ann-lee'],
    ['linkedin.com/in/Ann-Lee/', 'https://www.linkedin.com/in/ann-lee'],
    ['http://uk.linkedin.com/in/ann-lee?trk=x#top', 'https://www.linkedin.com/in/ann-lee'],
    ['https://www.linkedin.com/in/ann-lee/details/experience', 'https://www.linkedin.com/in/ann-lee'],
    ['https://www.linkedin.com/in/J%C3%BCrgen', 'https://www.linkedin.com/in/j%C3%BCrgen'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeLinkedinUrl(input)).toBe(expected);
  });
  it.each([['https://example.com/in/ann'], ['https://www.linkedin.com/'], ['not a url at all'], ['']])(
    'refuses %j',
    (input) => {
      expect(normalizeLinkedinUrl(input)).toBeUndefined();
    },
  );
});

describe('names and e-mail domains, as people type them', () => {
  it('compares names case- and accent-insensitively, spaces collapsed', () => {
    expect(normalizeName('  Léna   VÖGEL ')).toBe('lena vogel');
    expect(normalizeName('Lena Vogel')).toBe(normalizeName('LÉNA vogel'));
    expect(normalizeName(undefined)).toBe('');
  });
  it('needs both names for a full-name lookup', () => {
    expect(fullNameOf(' Lena ', 'Vogel')).toBe('Lena\tVogel');
    expect(fullNameOf('Lena', ' ')).toBeUndefined();
  });
  it('takes an e-mail at the domain or a subdomain, not one that only ends alike', () => {
    expect(isEmailAt('lena@acme.com', 'acme.com')).toBe(true);
    expect(isEmailAt('lena@eu.acme.com', 'acme.com')).toBe(true);
    expect(isEmailAt('lena@notacme.com', 'acme.com')).toBe(false);
    expect(isEmailAt(undefined, 'acme.com')).toBe(false);
  });
});
