/**
 * Words synthetic companies are made of: name stems, LinkedIn company types, technologies, investors and
 * funding round names. Some stems carry accents or apostrophes on purpose (Café, O'Malley, Łódź).
 */

/** The first word(s) of a company name. */
export const COMPANY_NAME_STEMS: readonly string[] = Object.freeze(
  [
    'Northwind, Bluepeak, Helix, Quantum, Ironclad, Silverline, Brightwave, Cedar, Orbit, Lumen, Vertex',
    'Harbor, Summit, Nimbus, Granite, Evergreen, Aurora, Beacon, Cobalt, Pioneer, Meridian, Sterling',
    'Crescent, Falcon, Redwood, Atlas, Keystone, Horizon, Polaris, Tidewater, Juniper, Sequoia, Ember',
    "Café Müller, O'Malley, Zoë & Co, Łódź, Škoda Street, Fjällräven Road, Mañana, Über Nord, D'Souza",
    'Kite, Basalt, Copperleaf, Driftwood, Foxglove, Hollowbrook, Lanternfish, Moonstone, Pinecrest',
  ]
    .flatMap((line) => line.split(','))
    .map((stem) => stem.trim()),
);

/** LinkedIn-style company types (Company.type is a free string or null). */
export const COMPANY_TYPES: readonly string[] = Object.freeze([
  'Privately Held',
  'Public Company',
  'Partnership',
  'Self-Owned',
  'Nonprofit',
]);

/** Technologies a company may be detected using. */
export const TECHNOLOGIES: readonly string[] = Object.freeze(
  [
    'Salesforce, HubSpot, Google Analytics, Amazon Web Services, React, Kubernetes, Stripe, Zendesk',
    'Slack, Segment, Snowflake, PostgreSQL, Shopify, WordPress, Cloudflare, Intercom, Marketo, Datadog',
    'Google Tag Manager, Microsoft 365, Atlassian Jira, Okta, Twilio, Vue.js, Node.js, Next.js, Terraform',
  ]
    .flatMap((line) => line.split(','))
    .map((name) => name.trim()),
);

/** Investors named in funding rounds. */
export const INVESTORS: readonly string[] = Object.freeze(
  [
    'Harbor Peak Ventures, Northstar Capital, Greyfield Partners, Lighthouse Seed Fund, Angle Ventures',
    "Cobalt Growth Equity, Tallwood Capital, Marlowe & Finch, Foundry Row, St. Brigid's Angels",
    'Kestrel Ventures, Blue Lantern Capital, Seventh Wave Partners, Octave Growth, Fieldstone VC',
  ]
    .flatMap((line) => line.split(','))
    .map((name) => name.trim()),
);

/** Funding rounds in the order a company raises them. */
export const FUNDING_ROUND_NAMES: readonly string[] = Object.freeze([
  'Pre-Seed',
  'Seed',
  'Series A',
  'Series B',
  'Series C',
  'Series D',
  'Series E',
]);

/** Typical amount raised per round, in US dollars: [min, max]. */
export const FUNDING_ROUND_AMOUNTS_USD: Readonly<Record<string, readonly [number, number]>> = {
  'Pre-Seed': [100_000, 1_500_000],
  Seed: [500_000, 5_000_000],
  'Series A': [3_000_000, 25_000_000],
  'Series B': [10_000_000, 80_000_000],
  'Series C': [30_000_000, 200_000_000],
  'Series D': [60_000_000, 400_000_000],
  'Series E': [100_000_000, 900_000_000],
};

/** Phrases completing "{name} helps {customers} {purpose}." in company descriptions. */
export const DESCRIPTION_CUSTOMERS: readonly string[] = Object.freeze([
  'mid-market teams',
  'enterprises',
  'small businesses',
  'hospitals and clinics',
  'retailers',
  'public institutions',
  'families',
  'developers',
]);
export const DESCRIPTION_PURPOSES: readonly string[] = Object.freeze([
  'work faster with less risk',
  'turn data into decisions',
  'grow revenue sustainably',
  'reach customers in 40+ countries',
  'stay compliant, "without the paperwork"',
  'build better products',
]);
