/**
 * One synthetic company, fully determined by its key: a Company object that meets every rule of the
 * interface's Company table, plus the place it sits in (for IP geolocation and its people's locations).
 */
import type { EmployeeRange } from '../../contract/enums.js';
import type { Company, FundingDetails, FundingRound } from '../../contract/resources.js';
import { toAsciiSlug } from './ascii-slug.js';
import { formatIsoDate, type MonthIndex, monthOf, toMonthIndex, yearOf } from './calendar-month.js';
import { drawCompanySize, EMPLOYEE_RANGE_BOUNDS, sizeRank } from './company-size.js';
import {
  COMPANY_NAME_STEMS,
  COMPANY_TYPES,
  DESCRIPTION_CUSTOMERS,
  DESCRIPTION_PURPOSES,
  FUNDING_ROUND_AMOUNTS_USD,
  FUNDING_ROUND_NAMES,
  INVESTORS,
  TECHNOLOGIES,
} from './company-vocabulary.js';
import { type SyntheticCity, type SyntheticCountry, WEIGHTED_COUNTRIES } from './countries.js';
import { deepFreeze } from './deep-freeze.js';
import { nameSuffixesFor, SYNTHETIC_INDUSTRIES } from './industries.js';
import { companyLinkedinUrl } from './linkedin-handle.js';
import { createSeededRandom, type SeededRandom, type SeedPart } from './seeded-random.js';

/** A generated company and where it is. */
export interface SyntheticCompany {
  /** The Company object as the interface shapes it, deep-frozen. */
  readonly company: Company;
  readonly country: SyntheticCountry;
  readonly city: SyntheticCity;
  /** Lower-cased LinkedIn handle (every synthetic company has a LinkedIn page). */
  readonly linkedinHandle: string;
}

/** What makes a company: its key, and the facts a request already fixed (a domain, a name...). */
export interface CompanySpec {
  /** Seed parts that determine everything not fixed below, e.g. [seed, 'company', 17]. */
  readonly key: readonly SeedPart[];
  /** The world's "today": nothing is founded or funded after it. */
  readonly referenceMonth: MonthIndex;
  readonly domain?: string;
  readonly name?: string;
  readonly linkedinHandle?: string;
  readonly industry?: string | null;
  readonly country?: SyntheticCountry;
  readonly city?: SyntheticCity;
  readonly type?: string | null;
  readonly size?: EmployeeRange;
  /** False for organisations that do not raise venture rounds (universities, agencies). Default true. */
  readonly fundable?: boolean;
}

/** Host of the logo images (a reserved example domain: nothing real is fetched). */
const LOGO_HOST = 'https://logos.example.com';
/** DNS caps a label at 63 characters; longer slugs are cut. */
const MAX_LABEL_LENGTH = 60;

/** The company that `spec` describes; the same spec always gives the same company. */
export function synthesizeCompany(spec: CompanySpec): SyntheticCompany {
  const random = createSeededRandom(...spec.key);
  const country = spec.country ?? random.weighted(WEIGHTED_COUNTRIES);
  const city = spec.city ?? random.pick(country.cities);
  const industry =
    spec.industry !== undefined
      ? spec.industry
      : random.chance(0.02)
        ? null
        : random.pick(SYNTHETIC_INDUSTRIES);
  const drawn = drawCompanySize(random);
  const size = spec.size ?? drawn.size;
  const employees =
    spec.size === undefined ? drawn.employees : random.int(...EMPLOYEE_RANGE_BOUNDS[spec.size]);
  const legalForm = random.pick(country.legalForms);
  const name = spec.name ?? nameCompany(random, industry, legalForm, spec.domain);
  const domain = spec.domain ?? `${domainLabel(random, name)}.${country.tld}`;
  const nameSlug = toAsciiSlug(name);
  // Every company has a LinkedIn page: a Job Change experience must carry company_linkedin_id and
  // company_linkedin_url (interface, Job Change output), and may name any company. The draw is kept, and
  // the 8% it once left without a page take theirs from a stream of their own, so that every other field
  // of every company stays what it was.
  const drawnPage = spec.linkedinHandle !== undefined || random.chance(0.92);
  const pageRandom = drawnPage ? random : createSeededRandom(...spec.key, 'linkedin-page');
  const linkedinHandle = (spec.linkedinHandle ?? nameSlug) || `company-${pageRandom.hex(6)}`;
  const linkedinId = /^\d+$/.test(linkedinHandle)
    ? linkedinHandle
    : String(pageRandom.int(10_000, 99_999_999));
  const rank = sizeRank(size);
  const founded = random.chance(0.05) ? null : foundedYear(random, spec.referenceMonth, rank);
  const funding = fundCompany(random, spec.fundable !== false, founded, rank, spec.referenceMonth);
  const company: Company = {
    id: random.uuid(),
    domain,
    name,
    website: random.chance(0.8) ? `https://www.${domain}` : `https://${domain}`,
    linkedin_id: linkedinId,
    description: random.chance(0.1) ? null : describeCompany(random, name, founded),
    logo_url: random.chance(0.15) ? null : `${LOGO_HOST}/${encodeURIComponent(domain)}.png`,
    size,
    employees_count: random.chance(0.05) ? null : employees,
    industry,
    type: spec.type !== undefined ? spec.type : pickCompanyType(random, rank),
    founded,
    address: [`${random.int(1, 999)} ${random.pick(country.streets)}`, city.city, city.state, country.name]
      .filter((part) => part !== null)
      .join(', '),
    country: country.name,
    linkedin_url: companyLinkedinUrl(linkedinHandle),
    linkedin_followers: pageRandom.int(10, 1000) * (rank + 1) ** 3,
    crunchbase_url:
      funding.funding_rounds.length > 0 || random.chance(0.3)
        ? `https://www.crunchbase.com/organization/${encodeURIComponent(nameSlug || domain)}`
        : null,
    funding_details: funding,
    recent_job_posting_count: random.chance(0.1) ? null : random.int(0, 3 + rank * rank * 12),
    technologies: random.sample(TECHNOLOGIES, random.int(0, 8)),
  };
  return { company: deepFreeze(company), country, city, linkedinHandle };
}

function nameCompany(
  random: SeededRandom,
  industry: string | null,
  legalForm: string,
  domain?: string,
): string {
  if (domain !== undefined) {
    // A domain a request named: the company is called after it ("acme-labs.io" → "Acme Labs").
    const label = domain.split('.')[0] ?? domain;
    const words = label.split(/[-_]+/).filter((word) => word.length > 0);
    const base = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');
    return base.length >= 3 ? base : `${base || 'Company'} ${legalForm}`;
  }
  const stem = random.pick(COMPANY_NAME_STEMS);
  const suffix = random.pick(nameSuffixesFor(industry));
  const base = suffix.startsWith('.') ? `${stem}${suffix}` : `${stem} ${suffix}`;
  return random.chance(0.35) ? `${base} ${legalForm}` : base;
}

function domainLabel(random: SeededRandom, name: string): string {
  // The legal form is not part of the domain ("Helix Labs GmbH" → helixlabs.de); disambiguating digits are
  // added by the world when two companies would share a domain.
  const withoutForm = name.replace(
    /\s+(?:Inc\.|LLC|Corp\.|Ltd\.?|PLC|GmbH|AG|SAS|SA|S\.[A-Za-z. ]+|B\.V\.|N\.V\.|AB|ApS|A\/S|K\.K\.|Pvt\. Ltd\.|Pty Ltd|\(Pty\) Ltd|Limited|Pte\. Ltd\.|Lda\.|Ltda\.|sp\. z o\.o\.|SARL)$/,
    '',
  );
  const slug = toAsciiSlug(withoutForm, '').slice(0, MAX_LABEL_LENGTH);
  return slug.length >= 2 ? slug : `company${random.hex(6)}`;
}

function foundedYear(random: SeededRandom, referenceMonth: MonthIndex, rank: number): number {
  const latest = yearOf(referenceMonth) - 1;
  // Large companies are older: the earliest possible founding year moves back with the size bucket.
  const earliest = latest - 12 - rank * 18;
  return random.int(earliest, latest);
}

function pickCompanyType(random: SeededRandom, rank: number): string | null {
  if (random.chance(0.06)) return null;
  if (rank >= 5 && random.chance(0.5)) return 'Public Company';
  return random.weighted(COMPANY_TYPES.map((type) => [type, type === 'Privately Held' ? 8 : 1] as const));
}

function describeCompany(random: SeededRandom, name: string, founded: number | null): string {
  const sentence = `${name} helps ${random.pick(DESCRIPTION_CUSTOMERS)} ${random.pick(DESCRIPTION_PURPOSES)}.`;
  // Some descriptions span two lines, as pasted "About" texts do: exports must quote them.
  return founded !== null && random.chance(0.3) ? `${sentence}\nFounded in ${founded}.` : sentence;
}

function fundCompany(
  random: SeededRandom,
  fundable: boolean,
  founded: number | null,
  rank: number,
  referenceMonth: MonthIndex,
): FundingDetails {
  const rounds: FundingRound[] = [];
  const firstYear = founded ?? yearOf(referenceMonth) - 10;
  if (fundable && firstYear >= 1995 && random.chance(0.55)) {
    const count = random.int(1, Math.min(FUNDING_ROUND_NAMES.length, 2 + rank));
    let month = toMonthIndex(firstYear, random.int(1, 12));
    const roundNames = random.chance(0.5) ? FUNDING_ROUND_NAMES : FUNDING_ROUND_NAMES.slice(1);
    for (let i = 0; i < count && i < roundNames.length && month <= referenceMonth; i += 1) {
      const roundName = roundNames[i]!;
      const [min, max] = FUNDING_ROUND_AMOUNTS_USD[roundName] ?? [100_000, 1_000_000];
      const investors = random.sample(INVESTORS, random.int(1, 4));
      rounds.push({
        round_name: roundName,
        round_date: formatIsoDate(yearOf(month), monthOf(month), random.int(1, 28)),
        investor_count: investors.length + random.int(0, 3),
        amount_raised_usd: random.int(min / 1000, max / 1000) * 1000,
        investor_names: investors,
      });
      month += random.int(8, 30);
    }
  }
  return {
    total_funding_rounds: rounds.length,
    total_funding_usd: rounds.reduce((sum, round) => sum + Number(round.amount_raised_usd), 0),
    funding_rounds: rounds,
  };
}
