/**
 * Realistic callback bodies for the storage benchmarks: a Search Contact page whose people differ as real
 * people do (names from many languages, titles, locations, employers, free-text "about" and experience
 * descriptions, dates, ids), and Company Reveal results of varied companies, both compact JSON as the
 * service sends them. Seeded: the same seed gives the same bytes. The older bench page (the fixture's two
 * people replicated) compresses about 43×, which flatters any codec; these compress about as real pages do.
 */

/** A small seeded PRNG (mulberry32): deterministic bodies without a dependency. */
export function createRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  const hex = (n) => Array.from({ length: n }, () => '0123456789abcdef'[int(16)]).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[int(4)]}${hex(3)}-${hex(12)}`;
  return { next, int, pick, hex, uuid };
}

const FIRST = (
  'Lena Tobias Zoë Łukasz Amélie Kenji Ana Siobhán Mateo Ingrid Aarav Priya Chen Wei Fatima Omar Olusegun ' +
  'Chiamaka Sven Astrid Mikko Aino Giulia Lorenzo Sofía Diego Camila João Beatriz Hiroshi Yuki Min-jun Seo-yeon ' +
  'Dmitri Anastasia Katarzyna Piotr Jakub Tereza Eszter Bálint Noah Emma Liam Olivia Ethan Ava Lucas Mia ' +
  'Hannah Jonas Felix Clara Emil Freya Oscar Maja Elif Mehmet Yasmin Karim Thandiwe Sipho Nadia Rafael'
).split(' ');
const LAST = (
  'Vogel Brandt Nowak García Okafor Tanaka Müller Haugen Rossi Novák Sharma Patel Wang Li Haddad Mansour ' +
  'Adeyemi Eze Lindqvist Johansson Virtanen Korhonen Bianchi Romano Fernández López Silva Santos Suzuki ' +
  'Yamamoto Kim Park Ivanov Petrova Kowalski Wiśniewski Dvořák Nagy Kovács Smith Johnson Williams Brown ' +
  'Jones Schmidt Schneider Fischer Weber Meyer Wagner Becker Hoffmann Schäfer Koch Richter Klein Wolf ' +
  "Yılmaz Demir Kaya Nkosi Dlamini O'Brien MacLeod Dubois Lefèvre Moreau Laurent"
).split(' ');
const ROLE = (
  'Sales Marketing Engineering Product Finance Operations People Legal Security Data Design Growth Revenue ' +
  'Partnerships Procurement Support Analytics Infrastructure Platform Research'
).split(' ');
const RANK = ['VP', 'Head of', 'Director of', 'Senior Manager,', 'Manager,', 'Lead,', 'Chief', 'Principal'];
const SENIORITY = ['Vice President', 'Director', 'CXO', 'Manager', 'Senior', 'Entry', 'Owner', 'Partner'];
/** The interface's department values (Resources): a page with any other fails the schema check. */
const DEPARTMENT = (
  'Leadership,Engineering,Product Management,Sales,Marketing,Customer Success,Finance,Accounting,Legal,' +
  'Human Resources,Information Technology,Operations,Education,Other'
).split(',');
const CITY = (
  'Berlin,Germany;Munich,Germany;Vienna,Austria;Zurich,Switzerland;Paris,France;Lyon,France;Madrid,Spain;' +
  'Barcelona,Spain;Lisbon,Portugal;Milan,Italy;Rome,Italy;Amsterdam,Netherlands;Brussels,Belgium;' +
  'Copenhagen,Denmark;Stockholm,Sweden;Oslo,Norway;Helsinki,Finland;Warsaw,Poland;Prague,Czechia;' +
  'Budapest,Hungary;London,United Kingdom;Dublin,Ireland;New York,United States;Austin,United States;' +
  'Toronto,Canada;São Paulo,Brazil;Tokyo,Japan;Seoul,South Korea;Singapore,Singapore;Bangalore,India;' +
  'Lagos,Nigeria;Cape Town,South Africa;Dubai,United Arab Emirates;Istanbul,Turkey;Sydney,Australia'
)
  .split(';')
  .map((pair) => pair.split(','));
const NAME_A = (
  'Acme North Blue Quantum Silver Nimbus Vertex Orbit Lumen Helix Apex Cobalt Ember Harbor Summit Pine ' +
  'Atlas Nova Vector Pixel Granite Willow Crescent Falcon Meridian Prism Aurora Cedar Beacon Polar'
).split(' ');
const NAME_B = (
  'Robotics Analytics Systems Labs Logistics Health Energy Capital Software Networks Foods Mobility Bio ' +
  'Security Cloud Materials Media Payments Devices Retail Insurance Learning Travel Works Dynamics'
).split(' ');
const SUFFIX = ['GmbH', 'Inc.', 'Ltd', 'AG', 'SAS', 'S.p.A.', 'B.V.', 'AB', 'Oy', 'LLC', 'plc', ''];
const WORDS = (
  'build scale lead grow team teams revenue pipeline customers enterprise mid-market accounts partners ' +
  'launch launched product products platform global regional across Europe APAC DACH Nordics markets ' +
  'strategy strategic data-driven hiring hired coached mentor mentored engineers sellers quota exceeded ' +
  'closed deals contracts renewals churn retention expansion onboarding playbook playbooks process ' +
  'processes automation cloud migration infrastructure security compliance GDPR SOC2 analytics reporting ' +
  'forecasting budget budgets P&L cost efficiency roadmap roadmaps discovery research design systems ' +
  'hardware software robotics logistics supply chain manufacturing healthcare fintech payments banking ' +
  'insurance retail e-commerce marketplace SaaS B2B B2C startup scale-up IPO acquisition merger integration ' +
  'transformation digital agile cross-functional stakeholders board investors fundraising Series A B C ' +
  'million ARR MRR NPS CSAT OKRs KPIs the a an and of for with in to from by on at our their new first ' +
  'over under more than while since after before double tripled reduced improved increased delivered owned ' +
  'managed ran set up opened office offices countries languages fluent German English French Spanish'
).split(' ');

const PHRASES = [
  'Leads a team of # account executives across',
  'Built the sales organisation from scratch to # people',
  'Responsible for new business in',
  'Grew annual recurring revenue from €#M to €#M',
  'Owns the partner channel and strategic alliances in',
  'Runs demand generation, field marketing and events for',
  'Hired and coached # engineers working on',
  'Launched the product in # new markets including',
  'Reports to the CEO; member of the leadership team',
  'Focus on enterprise accounts in manufacturing and logistics',
  'Previously at a Series B startup acquired in',
  'Passionate about building high-performing teams',
  'Drove the migration of # services to the cloud',
  'Managed a budget of $#M and a pipeline of $#M',
  'Speaker at industry conferences on',
];

function sentence(r, min, max) {
  const parts = Math.max(1, Math.round((min + r.int(max - min + 1)) / 8));
  const text = Array.from({ length: parts }, () => {
    const phrase = r.pick(PHRASES).replaceAll('#', () => String(2 + r.int(300)));
    return phrase.endsWith(' in') ||
      phrase.endsWith(' on') ||
      phrase.endsWith('including') ||
      phrase.endsWith('across')
      ? `${phrase} ${r.pick(WORDS)} ${r.pick(WORDS)}`
      : phrase;
  }).join('; ');
  return `${text}.`;
}

function company(r) {
  const a = r.pick(NAME_A);
  const b = r.pick(NAME_B);
  const name = `${a} ${b}${r.next() < 0.7 ? ` ${r.pick(SUFFIX)}` : ''}`.trim();
  const slug = `${a}-${b}`.toLowerCase();
  const tld = r.pick(['com', 'de', 'io', 'fr', 'co.uk', 'se', 'ai', 'es', 'it', 'nl']);
  return { name, domain: `${slug}.${tld}`, linkedinId: String(1000 + r.int(90_000_000)), slug };
}

function handle(first, last, r) {
  const base = `${first}-${last}`
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9-]/g, '');
  return r.next() < 0.5 ? `${base}-${r.hex(4 + r.int(5))}` : base;
}

function experience(r, current, year, employer) {
  const [city, country] = r.pick(CITY);
  const startYear = year - 1 - r.int(5);
  const startMonth = 1 + r.int(12);
  const endMonth = 1 + r.int(12);
  const pad = (n) => String(n).padStart(2, '0');
  return {
    title: `${r.pick(RANK)} ${r.pick(ROLE)}`,
    description:
      r.next() < 0.75 ? `${sentence(r, 8, 22)} ${r.next() < 0.5 ? sentence(r, 6, 16) : ''}`.trim() : null,
    location: `${city}, ${country}`,
    company_name: employer.name,
    company_linkedin_id: r.next() < 0.8 ? employer.linkedinId : null,
    company_linkedin_url: r.next() < 0.8 ? `https://www.linkedin.com/company/${employer.slug}` : null,
    company_domain: employer.domain,
    start_year: startYear,
    start_month: startMonth,
    start_date: `${startYear}-${pad(startMonth)}-01`,
    end_year: current ? null : year,
    end_month: current ? null : endMonth,
    end_date: current ? null : `${year}-${pad(endMonth)}-${pad(1 + r.int(28))}`,
    is_current: current,
  };
}

/** One person as a Search Contact page lists them. */
export function realisticPerson(r) {
  const first = r.pick(FIRST);
  const last = r.pick(LAST);
  const [city, country] = r.pick(CITY);
  const employer = company(r);
  const id = handle(first, last, r);
  const experiences = [];
  let year = 2026;
  const count = 1 + r.int(4);
  for (let i = 0; i < count; i += 1) {
    experiences.push(experience(r, i === 0, year, i === 0 ? employer : company(r)));
    year -= 1 + r.int(4);
  }
  const role = experiences[0].title;
  return {
    id: r.uuid(),
    first_name: first,
    last_name: last,
    linkedin_id: id,
    linkedin_url: `https://www.linkedin.com/in/${id}`,
    about: r.next() < 0.7 ? `${sentence(r, 10, 30)} ${sentence(r, 8, 24)}` : null,
    personal_email: null,
    location: `${city}, ${country}`,
    country,
    company_id: r.uuid(),
    company_linkedin_id: employer.linkedinId,
    company_name: employer.name,
    company_domain: employer.domain,
    professional_email: null,
    mobile_phone: null,
    phone_numbers: [],
    title: role,
    seniority: r.pick(SENIORITY),
    department: r.pick(DEPARTMENT),
    experiences,
    email_verified: null,
    email_confidence: null,
    email_verified_status: null,
    domain_age_days: null,
    smtp_provider: null,
    mx_record: null,
  };
}

/** A SUCCEEDED Search Contact page of `count` people for `jobId`, as compact JSON text. */
export function realisticSearchPage(r, jobId, count = 250) {
  const persons = Array.from({ length: count }, () => realisticPerson(r));
  return JSON.stringify({
    status: 'SUCCEEDED',
    start_date: '2026-11-24T14:20:30.123456+02:00',
    stop_date: '2026-11-24T14:20:41.000042+02:00',
    output: {
      persons,
      usage: {
        total_usd: count * 0.2,
        balance_remaining_usd: 25_000 - r.int(20_000) / 100,
        persons_count: count,
        persons_usd: count * 0.2,
        phones_count: 0,
        phones_usd: 0,
        companies_count: 0,
        companies_usd: 0,
      },
    },
    input: {
      task: {
        title_filters: [{ name: 'Revenue leaders', filter: 'VP Sales OR Head of Sales' }],
        seniorities: ['Vice President', 'Director'],
        location_countries: ['Germany', 'Austria'],
        page_number: 1 + r.int(40),
        page_size: count,
        custom_fields: { campaign: `q${1 + r.int(4)}-${r.hex(6)}` },
        job_id: jobId,
        context_id: r.uuid(),
      },
    },
  });
}

/** A SUCCEEDED Company Reveal result for `jobId`, as compact JSON text (about 1.4 KB). */
export function realisticReveal(r, jobId) {
  const employer = company(r);
  const [city, country] = r.pick(CITY);
  const ip = `${1 + r.int(222)}.${r.int(256)}.${r.int(256)}.${1 + r.int(254)}`;
  const rounds = Array.from({ length: r.int(4) }, (_, i) => {
    const investors = Array.from(
      { length: 1 + r.int(3) },
      () => `${r.pick(NAME_A)} ${r.pick(['Ventures', 'Capital', 'Partners'])}`,
    );
    return {
      round_name: ['Seed', 'Series A', 'Series B', 'Series C'][i],
      round_date: `${2015 + i * 2 + r.int(2)}-0${1 + r.int(9)}-1${r.int(10)}`,
      investor_count: investors.length,
      amount_raised_usd: 1_000_000 * (1 + r.int(80)),
      investor_names: investors,
    };
  });
  return JSON.stringify({
    status: 'SUCCEEDED',
    start_date: '2026-11-24T14:20:30.123456Z',
    stop_date: '2026-11-24T14:20:30.912000Z',
    input: {
      task: { ip, custom_fields: { visit_id: `v-${r.hex(8)}` }, job_id: jobId, context_id: r.uuid() },
    },
    output: {
      ip,
      type: 'company',
      confidence_score: r.pick(['high', 'medium', 'low']),
      ip_geo: { city, state: null, country },
      company: {
        id: r.uuid(),
        domain: employer.domain,
        name: employer.name,
        website: `https://www.${employer.domain}`,
        linkedin_id: employer.linkedinId,
        description: `${sentence(r, 12, 30)} ${sentence(r, 8, 20)}`,
        logo_url: `https://logo.example.com/${employer.domain}.png`,
        size: r.pick(['11-50', '51-200', '201-500', '501-1000', '1001-5000']),
        employees_count: 10 + r.int(5000),
        industry: r.pick(ROLE),
        type: r.pick(['Privately Held', 'Public Company', 'Partnership']),
        founded: 1950 + r.int(75),
        address: `${1 + r.int(200)} ${r.pick(NAME_A)} Street, ${city}`,
        country,
        linkedin_url: `https://www.linkedin.com/company/${employer.slug}`,
        linkedin_followers: r.int(200_000),
        crunchbase_url: r.next() < 0.5 ? `https://www.crunchbase.com/organization/${employer.slug}` : null,
        recent_job_posting_count: r.int(120),
        technologies: Array.from({ length: 3 + r.int(8) }, () => r.pick(WORDS)),
        funding_details: {
          total_funding_rounds: rounds.length,
          total_funding_usd: rounds.reduce((sum, round) => sum + round.amount_raised_usd, 0),
          funding_rounds: rounds,
        },
      },
      usage: {
        total_usd: 0.05,
        balance_remaining_usd: 25_000 - r.int(20_000) / 100,
        persons_count: 0,
        persons_usd: 0,
        phones_count: 0,
        phones_usd: 0,
        companies_count: 1,
        companies_usd: 0.05,
      },
    },
  });
}
