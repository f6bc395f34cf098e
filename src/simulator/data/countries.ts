/**
 * The countries synthetic companies and people live in: full names (interface: country is a full country
 * name of 1 to 200 characters), with cities, states, naming traditions, legal forms and domain endings.
 */
import type { NamePoolKey } from './person-names.js';
import type { Weighted } from './seeded-random.js';

/** A city and its state or region (null where the country has none worth naming). */
export interface SyntheticCity {
  readonly city: string;
  readonly state: string | null;
}

/** Everything generation needs to place a company or a person in a country. */
export interface SyntheticCountry {
  readonly name: string;
  /** Relative share of companies founded here. */
  readonly weight: number;
  readonly cities: readonly SyntheticCity[];
  readonly namePools: readonly NamePoolKey[];
  readonly legalForms: readonly string[];
  /** The ending of company domains here, without the dot. */
  readonly tld: string;
  readonly streets: readonly string[];
}

/** "City/State; City/State" → cities; a city without "/" has no state. */
function cities(text: string): readonly SyntheticCity[] {
  return text.split(';').map((entry) => {
    const [city, state] = entry.split('/').map((part) => part.trim()) as [string, string | undefined];
    return { city, state: state ?? null };
  });
}

function country(
  name: string,
  weight: number,
  cityText: string,
  namePools: readonly NamePoolKey[],
  legalForms: readonly string[],
  tld: string,
  streets: readonly string[],
): SyntheticCountry {
  return Object.freeze({ name, weight, cities: cities(cityText), namePools, legalForms, tld, streets });
}

const ENGLISH_STREETS = ['Market Street', 'Main Street', 'High Street', 'Park Avenue', 'King Street'];

/** The country table, in a stable order. Côte d'Ivoire carries both an accent and an apostrophe. */
export const SYNTHETIC_COUNTRIES: readonly SyntheticCountry[] = Object.freeze([
  country(
    'United States',
    30,
    'San Francisco/California; New York/New York; Austin/Texas; Chicago/Illinois; Boston/Massachusetts; Seattle/Washington; Denver/Colorado',
    ['english', 'english', 'irish', 'spanish', 'indian'],
    ['Inc.', 'LLC', 'Corp.'],
    'com',
    ENGLISH_STREETS,
  ),
  country(
    'United Kingdom',
    10,
    'London/England; Manchester/England; Edinburgh/Scotland; Cardiff/Wales',
    ['english', 'english', 'irish', 'indian'],
    ['Ltd', 'PLC'],
    'co.uk',
    ENGLISH_STREETS,
  ),
  country(
    'Ireland',
    3,
    'Dublin/Leinster; Cork/Munster; Galway/Connacht',
    ['irish', 'english'],
    ['Ltd'],
    'ie',
    ["O'Connell Street", 'Grafton Street'],
  ),
  country(
    'Germany',
    8,
    'Berlin/Berlin; Munich/Bavaria; Hamburg/Hamburg; Frankfurt/Hesse',
    ['german'],
    ['GmbH', 'AG'],
    'de',
    ['Friedrichstraße', 'Hauptstraße', 'Königsallee'],
  ),
  country(
    'France',
    6,
    'Paris/Île-de-France; Lyon/Auvergne-Rhône-Alpes; Toulouse/Occitanie',
    ['french'],
    ['SAS', 'SA'],
    'fr',
    ['Rue de Rivoli', 'Avenue des Champs-Élysées', 'Rue de la République'],
  ),
  country(
    'Spain',
    4,
    'Madrid/Community of Madrid; Barcelona/Catalonia; Valencia/Valencian Community',
    ['spanish'],
    ['S.L.', 'S.A.'],
    'es',
    ['Calle de Alcalá', 'Passeig de Gràcia'],
  ),
  country(
    'Mexico',
    3,
    'Mexico City/Mexico City; Guadalajara/Jalisco; Monterrey/Nuevo León',
    ['spanish'],
    ['S.A. de C.V.'],
    'com.mx',
    ['Paseo de la Reforma', 'Avenida Juárez'],
  ),
  country(
    'Argentina',
    2,
    'Buenos Aires/Buenos Aires; Córdoba/Córdoba',
    ['spanish', 'italian'],
    ['S.A.'],
    'com.ar',
    ['Avenida Corrientes'],
  ),
  country(
    'Brazil',
    4,
    'São Paulo/São Paulo; Rio de Janeiro/Rio de Janeiro; Belo Horizonte/Minas Gerais',
    ['portuguese'],
    ['Ltda.', 'S.A.'],
    'com.br',
    ['Avenida Paulista', 'Rua Augusta'],
  ),
  country('Portugal', 2, 'Lisbon/Lisbon; Porto/Porto', ['portuguese'], ['Lda.'], 'pt', [
    'Avenida da Liberdade',
  ]),
  country(
    'Poland',
    3,
    'Warsaw/Masovian Voivodeship; Kraków/Lesser Poland Voivodeship; Łódź/Łódź Voivodeship; Wrocław/Lower Silesian Voivodeship',
    ['polish'],
    ['sp. z o.o.', 'S.A.'],
    'pl',
    ['ulica Marszałkowska', 'ulica Piotrkowska'],
  ),
  country(
    'Netherlands',
    3,
    'Amsterdam/North Holland; Rotterdam/South Holland; Utrecht/Utrecht',
    ['dutch'],
    ['B.V.', 'N.V.'],
    'nl',
    ['Herengracht', 'Keizersgracht'],
  ),
  country(
    'Sweden',
    2,
    'Stockholm/Stockholm County; Gothenburg/Västra Götaland County; Malmö/Skåne County',
    ['nordic'],
    ['AB'],
    'se',
    ['Drottninggatan', 'Kungsgatan'],
  ),
  country(
    'Denmark',
    2,
    'Copenhagen/Capital Region; Aarhus/Central Denmark Region',
    ['nordic'],
    ['ApS', 'A/S'],
    'dk',
    ['Strøget'],
  ),
  country('Japan', 3, 'Tokyo/Tokyo; Osaka/Osaka; Kyoto/Kyoto', ['japanese'], ['K.K.'], 'co.jp', [
    'Chuo-dori',
    'Meiji-dori',
  ]),
  country(
    'India',
    6,
    'Bengaluru/Karnataka; Mumbai/Maharashtra; Hyderabad/Telangana; Pune/Maharashtra',
    ['indian'],
    ['Pvt. Ltd.', 'Ltd.'],
    'in',
    ['MG Road', 'Brigade Road'],
  ),
  country(
    'Canada',
    5,
    'Toronto/Ontario; Vancouver/British Columbia; Montréal/Quebec',
    ['english', 'french', 'irish'],
    ['Inc.', 'Ltd.'],
    'ca',
    ['Bay Street', 'Rue Sainte-Catherine'],
  ),
  country(
    'Australia',
    4,
    'Sydney/New South Wales; Melbourne/Victoria; Brisbane/Queensland',
    ['english', 'irish'],
    ['Pty Ltd'],
    'com.au',
    ['George Street', 'Collins Street'],
  ),
  country('New Zealand', 1, 'Auckland/Auckland; Wellington/Wellington', ['english'], ['Limited'], 'co.nz', [
    'Queen Street',
  ]),
  country('Singapore', 2, 'Singapore', ['english', 'indian'], ['Pte. Ltd.'], 'com.sg', ['Orchard Road']),
  country(
    'Switzerland',
    2,
    'Zürich/Zürich; Geneva/Geneva; Basel/Basel-Stadt',
    ['german', 'french', 'italian'],
    ['AG', 'SA'],
    'ch',
    ['Bahnhofstrasse'],
  ),
  country('Italy', 3, 'Milan/Lombardy; Rome/Lazio; Turin/Piedmont', ['italian'], ['S.p.A.', 'S.r.l.'], 'it', [
    'Via del Corso',
    'Via Montenapoleone',
  ]),
  country('Nigeria', 2, 'Lagos/Lagos; Abuja/Federal Capital Territory', ['nigerian'], ['Ltd'], 'com.ng', [
    'Adeola Odeku Street',
  ]),
  country(
    'South Africa',
    2,
    'Cape Town/Western Cape; Johannesburg/Gauteng',
    ['southAfrican', 'english'],
    ['(Pty) Ltd'],
    'co.za',
    ['Long Street'],
  ),
  country(
    "Côte d'Ivoire",
    1,
    'Abidjan/Abidjan; Yamoussoukro/Yamoussoukro',
    ['ivorian', 'french'],
    ['SARL'],
    'ci',
    ['Boulevard de la République'],
  ),
]);

/** The countries with their weights, for drawing where a company is. */
export const WEIGHTED_COUNTRIES: readonly Weighted<SyntheticCountry>[] = Object.freeze(
  SYNTHETIC_COUNTRIES.map((entry) => [entry, entry.weight] as const),
);
