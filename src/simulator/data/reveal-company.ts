/**
 * Company Reveal over a synthetic world: every IPv4 address answers the same way every time. Outcomes are
 * decided per /24 block (a block belongs to one organisation, as real allocations do), confidence per address.
 *
 * Proportions over public addresses (by /24 block):
 * - 70 %  type company, a world company; confidence very_high 20 %, high 35 %, medium 30 %, low 15 %
 * - 10 %  type isp, company {}, confidence null
 * -  6 %  type education: two thirds a university (confidence high or medium), one third company {} (null)
 * -  4 %  type government: two thirds an agency (confidence high or medium), one third company {} (null)
 * - 10 %  unresolved: type null, confidence null, company {}; ip_geo has the country only, or nothing
 * Private, loopback, link-local, shared, multicast and reserved addresses are always unresolved with ip_geo all null.
 */
import type { CompanyRevealType, ConfidenceScore } from '../../contract/enums.js';
import { isIpv4 } from '../../contract/formats.js';
import type { Company, EmptyObject, IpGeo } from '../../contract/resources.js';
import { toAsciiSlug } from './ascii-slug.js';
import { type SyntheticCity, type SyntheticCountry, WEIGHTED_COUNTRIES } from './countries.js';
import { EDUCATION_INDUSTRY, GOVERNMENT_INDUSTRY } from './industries.js';
import { createSeededRandom, type Weighted } from './seeded-random.js';
import { type SyntheticCompany, synthesizeCompany } from './synthesize-company.js';
import type { WorldCatalog } from './world-catalog.js';

/** A Company Reveal output without its usage (the server adds the usage of the job). */
export interface SyntheticReveal {
  ip: string;
  type: CompanyRevealType | null;
  confidence_score: ConfidenceScore | null;
  ip_geo: IpGeo;
  company: Company | EmptyObject;
}

type Outcome = 'company' | 'isp' | 'education' | 'government' | 'unresolved';

/** Share of /24 blocks per outcome (see the module comment). */
export const REVEAL_OUTCOME_WEIGHTS: readonly Weighted<Outcome>[] = [
  ['company', 70],
  ['isp', 10],
  ['education', 6],
  ['government', 4],
  ['unresolved', 10],
];

/** Confidence of a company answer. */
export const REVEAL_CONFIDENCE_WEIGHTS: readonly Weighted<ConfidenceScore>[] = [
  ['very_high', 20],
  ['high', 35],
  ['medium', 30],
  ['low', 15],
];

/** Institutions per kind in a world: a few universities and agencies that many blocks map to. */
const INSTITUTION_COUNT = 12;

/** True for addresses that no organisation is revealed behind (RFC 6890 special-purpose ranges). */
export function isSpecialPurposeIpv4(ip: string): boolean {
  const [a = 0, b = 0] = ip.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19))
  );
}

/** Builds the reveal of one world; institutions are made on first use. */
export function createRevealer(catalog: WorldCatalog): (ip: string) => SyntheticReveal {
  const { seed } = catalog.config;
  const institutions = new Map<'education' | 'government', readonly SyntheticCompany[]>();
  const institutionsOf = (kind: 'education' | 'government'): readonly SyntheticCompany[] => {
    let list = institutions.get(kind);
    if (list === undefined) {
      list = Array.from({ length: INSTITUTION_COUNT }, (_, i) => makeInstitution(catalog, kind, i));
      institutions.set(kind, list);
    }
    return list;
  };

  return (ip: string): SyntheticReveal => {
    if (!isIpv4(ip)) {
      throw new TypeError(`revealCompany expects a dotted-quad IPv4 address, got ${JSON.stringify(ip)}`);
    }
    const nothing: SyntheticReveal = {
      ip,
      type: null,
      confidence_score: null,
      ip_geo: { city: null, state: null, country: null },
      company: {},
    };
    if (isSpecialPurposeIpv4(ip)) return nothing;
    const block = ip.slice(0, ip.lastIndexOf('.'));
    const random = createSeededRandom(seed, 'reveal-block', block);
    const outcome = random.weighted(REVEAL_OUTCOME_WEIGHTS);
    const confidence = createSeededRandom(seed, 'reveal-ip', ip).weighted(REVEAL_CONFIDENCE_WEIGHTS);
    const randomPlace = (): IpGeo => {
      const country = random.weighted(WEIGHTED_COUNTRIES);
      return toGeo(random.pick(country.cities), country);
    };
    switch (outcome) {
      case 'company': {
        const found = catalog.pickCompany(random.next());
        const city = random.chance(0.8) ? found.city : random.pick(found.country.cities);
        return {
          ip,
          type: 'company',
          confidence_score: confidence,
          ip_geo: toGeo(city, found.country),
          company: found.company,
        };
      }
      case 'isp':
        return { ...nothing, type: 'isp', ip_geo: randomPlace() };
      case 'education':
      case 'government': {
        if (random.chance(1 / 3)) return { ...nothing, type: outcome, ip_geo: randomPlace() };
        const found = random.pick(institutionsOf(outcome));
        const score: ConfidenceScore =
          confidence === 'very_high' || confidence === 'high' ? 'high' : 'medium';
        return {
          ip,
          type: outcome,
          confidence_score: score,
          ip_geo: toGeo(found.city, found.country),
          company: found.company,
        };
      }
      case 'unresolved': {
        if (random.chance(0.5)) return nothing;
        return { ...nothing, ip_geo: { city: null, state: null, country: randomPlace().country } };
      }
    }
  };
}

function toGeo(city: SyntheticCity, country: SyntheticCountry): IpGeo {
  return { city: city.city, state: city.state, country: country.name };
}

function makeInstitution(
  catalog: WorldCatalog,
  kind: 'education' | 'government',
  index: number,
): SyntheticCompany {
  const { seed, referenceMonth } = catalog.config;
  const key = [seed, 'institution', kind, index];
  const random = createSeededRandom(...key, 'place');
  const country = random.weighted(WEIGHTED_COUNTRIES);
  const city = random.pick(country.cities);
  const name =
    kind === 'education'
      ? random.pick([
          `University of ${city.city}`,
          `${city.city} Institute of Technology`,
          `${city.city} Business School`,
        ])
      : random.pick([
          `City of ${city.city}`,
          `${city.state ?? city.city} Department of Revenue`,
          `${country.name} Statistics Office`,
        ]);
  return synthesizeCompany({
    key,
    referenceMonth,
    name,
    domain: `${toAsciiSlug(name, '')}.${kind === 'education' ? 'edu' : 'gov'}`,
    country,
    city,
    industry: kind === 'education' ? EDUCATION_INDUSTRY : GOVERNMENT_INDUSTRY,
    type: kind === 'education' ? 'Educational' : 'Government Agency',
    size: random.pick(['1001-5000', '5001-10000', '10001+'] as const),
    fundable: false,
  });
}
