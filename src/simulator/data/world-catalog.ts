/**
 * The state of one synthetic world: its companies (made eagerly, with unique domains, names and LinkedIn
 * handles), their staff (made on first use and kept), and companies or people synthesised on demand for
 * identifiers the world does not hold (kept in bounded caches, regenerated identically when evicted).
 */
import { domainProblem, extractDomain } from '../../contract/request-fields.js';
import { BoundedCache } from './bounded-cache.js';
import type { MonthIndex } from './calendar-month.js';
import { parseLinkedinHandle } from './linkedin-handle.js';
import { hashSeedParts, hashToUnit, type SeededRandom } from './seeded-random.js';
import { type CompanySpec, type SyntheticCompany, synthesizeCompany } from './synthesize-company.js';
import { type SyntheticPerson, synthesizePerson } from './synthesize-person.js';

/** How a world is made; see createSyntheticWorld for defaults. */
export interface WorldCatalogConfig {
  readonly seed: string;
  readonly companyCount: number;
  readonly peoplePerCompany: number;
  readonly referenceMonth: MonthIndex;
}

/** Most people one company can have: 1.5 × MAX_PEOPLE_PER_COMPANY fits in the handle's person slots. */
export const MAX_PEOPLE_PER_COMPANY = 2000;
const PERSON_SLOTS = 4096;

/** Attempts at a company with a name, domain and handle of its own before numbering them. */
const UNIQUE_ATTEMPTS = 12;

/** Normalised form of a company name or a person's full name, for case- and spacing-insensitive matches. */
export function normalizeName(name: string): string {
  return name.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Companies and people of one world, with lookups by the identifiers requests use. */
export class WorldCatalog {
  readonly config: WorldCatalogConfig;
  readonly companies: readonly SyntheticCompany[];
  readonly #byDomain = new Map<string, SyntheticCompany>();
  readonly #byLinkedin = new Map<string, SyntheticCompany>();
  readonly #byName = new Map<string, SyntheticCompany>();
  readonly #staff = new Map<SyntheticCompany, readonly SyntheticPerson[]>();
  readonly #onDemandCompanies = new BoundedCache<string, SyntheticCompany>();
  readonly #onDemandStaff = new BoundedCache<SyntheticCompany, readonly SyntheticPerson[]>();
  readonly #onDemandPeople = new BoundedCache<string, SyntheticPerson>();
  readonly #companyIndex = new Map<SyntheticCompany, number>();
  readonly #handleMask: number;

  constructor(config: WorldCatalogConfig) {
    this.config = config;
    this.#handleMask = hashSeedParts([config.seed, 'person-handle'])[0];
    const companies: SyntheticCompany[] = [];
    for (let index = 0; index < config.companyCount; index += 1) {
      const company = this.#uniqueCompany(index);
      companies.push(company);
      this.#index(company);
      this.#companyIndex.set(company, index);
    }
    this.companies = Object.freeze(companies);
  }

  /** The world company at `domain` (plain or URL), else one synthesised for it; undefined for a non-domain. */
  companyByDomain(value: string): SyntheticCompany | undefined {
    const domain = extractDomain(value);
    if (domain.length < 4 || domainProblem(domain) !== undefined) return undefined;
    return this.#byDomain.get(domain) ?? this.#onDemand(['domain', domain], { domain });
  }

  /** The world company with this LinkedIn URL, handle or id, else one synthesised for it. */
  companyByLinkedin(value: string): SyntheticCompany | undefined {
    const handle = parseLinkedinHandle(value);
    if (handle.length === 0) return undefined;
    return (
      this.#byLinkedin.get(handle) ?? this.#onDemand(['company-linkedin', handle], { linkedinHandle: handle })
    );
  }

  /** The world company of this name (case-insensitive), else one synthesised for it. */
  companyByName(value: string): SyntheticCompany | undefined {
    const name = value.normalize('NFC').trim().replace(/\s+/g, ' ');
    if (name.length === 0) return undefined;
    return (
      this.#byName.get(normalizeName(name)) ?? this.#onDemand(['company-name', normalizeName(name)], { name })
    );
  }

  /** The people working at `company`, in a stable order (index 0 is its head). */
  staffOf(company: SyntheticCompany): readonly SyntheticPerson[] {
    const known = this.#staff.get(company);
    if (known !== undefined) return known;
    const index = this.#companyIndex.get(company);
    if (index !== undefined) {
      const staff = this.#makeStaff(company, (person) => this.#handleSuffix(index, person));
      this.#staff.set(company, staff);
      return staff;
    }
    return this.#onDemandStaff.getOrCreate(company, () => {
      const staff = this.#makeStaff(company, () => undefined);
      // Remember their handles, so that a contact search finds the people a company search showed.
      for (const person of staff) this.#onDemandPeople.getOrCreate(person.linkedinHandle, () => person);
      return staff;
    });
  }

  /** The person behind a LinkedIn URL or id: a world person, else one synthesised for it. */
  personByLinkedin(value: string): SyntheticPerson | undefined {
    const handle = parseLinkedinHandle(value);
    if (handle.length === 0) return undefined;
    return (
      this.#decodeWorldPerson(handle) ??
      this.#onDemandPeople.getOrCreate(handle, () =>
        synthesizePerson({
          key: [this.config.seed, 'contact', handle],
          employer: this.pickCompany(hashToUnit(this.config.seed, 'contact-employer', handle)),
          index: 1,
          referenceMonth: this.config.referenceMonth,
          pastEmployer: (random) => this.pickCompany(random.next()),
          linkedinHandle: handle,
        }),
      )
    );
  }

  /** The world company a unit value in [0, 1) lands on (for hashing identifiers onto companies). */
  pickCompany(u: number): SyntheticCompany {
    return this.companies[Math.min(this.companies.length - 1, Math.floor(u * this.companies.length))]!;
  }

  /** A world company other than `not`, drawn from `random`. */
  pickOtherCompany(random: SeededRandom, not: SyntheticCompany): SyntheticCompany {
    if (this.companies.length === 1 && this.companies[0] === not) {
      return this.#onDemand(['elsewhere', not.company.id], {});
    }
    for (;;) {
      const company = this.pickCompany(random.next());
      if (company !== not) return company;
    }
  }

  /** A person made for a request that names no known profile (Job Change by email or name). */
  synthesizeContact(
    key: readonly (string | number)[],
    employer: SyntheticCompany,
    names: { firstName?: string; lastName?: string },
  ): SyntheticPerson {
    return synthesizePerson({
      key: [this.config.seed, 'contact', ...key],
      employer,
      index: 1,
      referenceMonth: this.config.referenceMonth,
      pastEmployer: (random) => this.pickOtherCompany(random, employer),
      ...names,
    });
  }

  #uniqueCompany(index: number): SyntheticCompany {
    const base = { referenceMonth: this.config.referenceMonth };
    let company: SyntheticCompany | undefined;
    for (let attempt = 0; attempt < UNIQUE_ATTEMPTS; attempt += 1) {
      company = synthesizeCompany({ ...base, key: [this.config.seed, 'company', index, attempt] });
      if (this.#isUnique(company)) return company;
    }
    // A crowded world: keep the last draw, numbered so that its identifiers are its own.
    const last = company!;
    const [label, ...rest] = last.company.domain.split('.');
    return synthesizeCompany({
      ...base,
      key: [this.config.seed, 'company', index, 'numbered'],
      name: `${last.company.name} ${index}`,
      domain: [`${label}${index}`, ...rest].join('.'),
      linkedinHandle: `${last.linkedinHandle ?? 'company'}-${index}`,
      country: last.country,
      city: last.city,
      industry: last.company.industry,
    });
  }

  #isUnique(candidate: SyntheticCompany): boolean {
    const { domain, name, linkedin_id } = candidate.company;
    return (
      !this.#byDomain.has(domain) &&
      !this.#byName.has(normalizeName(name)) &&
      (candidate.linkedinHandle === null || !this.#byLinkedin.has(candidate.linkedinHandle)) &&
      (linkedin_id === null || !this.#byLinkedin.has(linkedin_id))
    );
  }

  #index(company: SyntheticCompany): void {
    this.#byDomain.set(company.company.domain, company);
    this.#byName.set(normalizeName(company.company.name), company);
    if (company.linkedinHandle !== null) this.#byLinkedin.set(company.linkedinHandle, company);
    if (company.company.linkedin_id !== null) this.#byLinkedin.set(company.company.linkedin_id, company);
  }

  #onDemand(key: readonly string[], facts: Partial<CompanySpec>): SyntheticCompany {
    return this.#onDemandCompanies.getOrCreate(key.join('\u0000'), () => {
      const spec: CompanySpec = {
        ...facts,
        key: [this.config.seed, ...key],
        referenceMonth: this.config.referenceMonth,
      };
      const made = synthesizeCompany(spec);
      // A made-up company must not take a world company's domain or handle, or lookups would disagree.
      const domainTaken = facts.domain === undefined && this.#byDomain.has(made.company.domain);
      const handle = made.linkedinHandle;
      const handleTaken =
        facts.linkedinHandle === undefined && handle !== null && this.#byLinkedin.has(handle);
      if (!domainTaken && !handleTaken) return made;
      return synthesizeCompany({
        ...spec,
        name: made.company.name,
        domain: domainTaken ? `x-${made.company.domain}` : made.company.domain,
        ...(handle === null ? {} : { linkedinHandle: handleTaken ? `${handle}-x` : handle }),
        country: made.country,
        city: made.city,
        industry: made.company.industry,
      });
    });
  }

  #makeStaff(
    company: SyntheticCompany,
    handleSuffix: (index: number) => string | undefined,
  ): readonly SyntheticPerson[] {
    const { seed, peoplePerCompany, referenceMonth } = this.config;
    const id = company.company.id;
    // Head counts vary from half to one and a half times the configured number, never above the employees.
    const varied = Math.round(peoplePerCompany * (0.5 + hashToUnit(seed, 'staff-size', id)));
    const count = Math.max(
      peoplePerCompany > 0 ? 1 : 0,
      Math.min(varied, company.company.employees_count ?? varied),
    );
    const staff: SyntheticPerson[] = [];
    for (let index = 0; index < count; index += 1) {
      staff.push(
        synthesizePerson({
          key: [seed, 'person', id, index],
          employer: company,
          index,
          referenceMonth,
          pastEmployer: (random) => this.pickOtherCompany(random, company),
          ...optional('handleSuffix', handleSuffix(index)),
        }),
      );
    }
    return Object.freeze(staff);
  }

  /**
   * World people's handles end in 8 hex digits encoding their company and staff position (masked by the
   * seed, so they look random): a contact search finds them without generating every company's staff.
   */
  #handleSuffix(companyIndex: number, personIndex: number): string {
    return (((companyIndex * PERSON_SLOTS + personIndex) ^ this.#handleMask) >>> 0)
      .toString(16)
      .padStart(8, '0');
  }

  #decodeWorldPerson(handle: string): SyntheticPerson | undefined {
    const suffix = /-([0-9a-f]{8})$/.exec(handle)?.[1];
    if (suffix === undefined) return undefined;
    const slot = (Number.parseInt(suffix, 16) ^ this.#handleMask) >>> 0;
    const company = this.companies[Math.floor(slot / PERSON_SLOTS)];
    const person = company === undefined ? undefined : this.staffOf(company)[slot % PERSON_SLOTS];
    return person?.linkedinHandle === handle ? person : undefined;
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
