/**
 * The simulator's supported industry list: title-case names of 5 to 57 characters, as the Search Contact
 * request's company_industries expects (interface, Search Contact Launcher request fields).
 */

/** Industries companies are drawn from, in a stable order (index = identity for generation). */
export const SYNTHETIC_INDUSTRIES = Object.freeze([
  'Accounting',
  'Airlines & Aviation',
  'Apparel & Fashion',
  'Architecture & Planning',
  'Automotive',
  'Banking',
  'Biotechnology',
  'Broadcast Media',
  'Civil Engineering',
  'Computer & Network Security',
  'Computer Games',
  'Computer Hardware',
  'Computer Software',
  'Construction',
  'Consumer Electronics',
  'Consumer Goods',
  'E-Learning',
  'Education Management',
  'Financial Services',
  'Food & Beverages',
  'Government Administration',
  'Higher Education',
  'Hospital & Health Care',
  'Hospitality',
  'Human Resources',
  'Information Technology & Services',
  'Insurance',
  'Internet',
  'Legal Services',
  'Logistics & Supply Chain',
  'Management Consulting',
  'Marketing & Advertising',
  'Mechanical & Industrial Engineering',
  'Media Production',
  'Medical Devices',
  'Oil & Energy',
  'Pharmaceuticals',
  'Real Estate',
  'Renewables & Environment',
  'Retail',
  'Telecommunications',
  'Venture Capital & Private Equity',
  'Wholesale',
] as const);

/** One industry name of {@link SYNTHETIC_INDUSTRIES}. */
export type SyntheticIndustry = (typeof SYNTHETIC_INDUSTRIES)[number];

/** Industries of the institutions a reveal answers for education and government IPs. */
export const EDUCATION_INDUSTRY: SyntheticIndustry = 'Higher Education';
export const GOVERNMENT_INDUSTRY: SyntheticIndustry = 'Government Administration';

/** The word a company name ends with, per industry (keyed loosely by a word of the industry). */
const NAME_SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  Accounting: ['Accounting', 'Tax Advisors', 'Audit Partners'],
  Aviation: ['Aviation', 'Air', 'Aerospace'],
  Fashion: ['Apparel', 'Studio', 'Threads'],
  Planning: ['Architects', 'Design Studio', 'Planning'],
  Automotive: ['Motors', 'Automotive', 'Mobility'],
  Banking: ['Bank', 'Savings', 'Bancorp'],
  Biotechnology: ['Bio', 'Therapeutics', 'Genomics'],
  Media: ['Media', 'Broadcasting', 'Studios'],
  Engineering: ['Engineering', 'Structures', 'Works'],
  Security: ['Security', 'Cyber', 'Defense'],
  Games: ['Games', 'Interactive', 'Play'],
  Hardware: ['Devices', 'Hardware', 'Silicon'],
  Software: ['Software', 'Labs', 'Cloud', 'Systems'],
  Construction: ['Builders', 'Construction', 'Contractors'],
  Electronics: ['Electronics', 'Audio', 'Devices'],
  Goods: ['Brands', 'Goods', 'Home'],
  Education: ['Learning', 'Academy', 'Institute'],
  Learning: ['Learning', 'Courses', 'Classroom'],
  Financial: ['Capital', 'Finance', 'Payments'],
  Food: ['Foods', 'Kitchen', 'Beverages'],
  Government: ['Agency', 'Authority', 'Office'],
  Health: ['Health', 'Care', 'Clinics'],
  Hospitality: ['Hotels', 'Hospitality', 'Resorts'],
  Resources: ['People', 'Talent', 'Staffing'],
  Services: ['IT', 'Digital', 'Solutions'],
  Insurance: ['Insurance', 'Assurance', 'Mutual'],
  Internet: ['.io', 'Online', 'Web'],
  Legal: ['Law', 'Legal', 'Attorneys'],
  Logistics: ['Logistics', 'Freight', 'Shipping'],
  Consulting: ['Consulting', 'Advisory', 'Partners'],
  Marketing: ['Marketing', 'Creative', 'Agency'],
  Devices: ['Medical', 'MedTech', 'Devices'],
  Energy: ['Energy', 'Petroleum', 'Power'],
  Pharmaceuticals: ['Pharma', 'Pharmaceuticals', 'Labs'],
  Estate: ['Properties', 'Realty', 'Estates'],
  Environment: ['Renewables', 'Solar', 'Green Energy'],
  Retail: ['Stores', 'Market', 'Shop'],
  Telecommunications: ['Telecom', 'Networks', 'Mobile'],
  Equity: ['Ventures', 'Capital Partners', 'Equity'],
  Wholesale: ['Wholesale', 'Distribution', 'Supply'],
};

const FALLBACK_SUFFIXES = ['Group', 'Company', 'Holdings'] as const;

/** Company-name endings that fit `industry` (the first keyword found wins; a generic list otherwise). */
export function nameSuffixesFor(industry: string | null): readonly string[] {
  if (industry === null) return FALLBACK_SUFFIXES;
  for (const word of industry.split(/[\s&-]+/)) {
    const suffixes = NAME_SUFFIXES[word];
    if (suffixes !== undefined) return suffixes;
  }
  return FALLBACK_SUFFIXES;
}
