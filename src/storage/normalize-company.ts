/**
 * A Company Reveal envelope read two ways: its companies row (what exports filter, order and deduplicate
 * by), and every field of the result (what the IP is, and the company behind it; null fields when company
 * is `{}`), which exports read from the stored envelope when a template asks for them.
 */
import type { CompaniesTable } from './job-store/job-store-tables.js';
import {
  asRecord,
  int32At,
  int64DigitsAt,
  jsonArrayAt,
  jsonObjectAt,
  recordAt,
  textAt,
} from './normalize-values.js';

/** One row of the companies table. */
export type CompanyRow = CompaniesTable;

/** Every field of a Company Reveal result, flattened as exports name them (JSON members as text). */
export interface CompanyRevealFields {
  readonly ip: string | null;
  readonly ip_type: string | null;
  readonly confidence_score: string | null;
  readonly ip_geo_city: string | null;
  readonly ip_geo_state: string | null;
  readonly ip_geo_country: string | null;
  readonly company_id: string | null;
  readonly domain: string | null;
  readonly name: string | null;
  readonly website: string | null;
  readonly linkedin_id: string | null;
  readonly description: string | null;
  readonly logo_url: string | null;
  readonly size: string | null;
  readonly employees_count: number | null;
  readonly industry: string | null;
  readonly company_type: string | null;
  readonly founded: number | null;
  readonly address: string | null;
  readonly country: string | null;
  readonly linkedin_url: string | null;
  readonly linkedin_followers: number | null;
  readonly crunchbase_url: string | null;
  readonly recent_job_posting_count: number | null;
  readonly total_funding_rounds: number | null;
  /** int64 as its decimal digits, never rounded. */
  readonly total_funding_usd: string | null;
  /** JSON array of strings. */
  readonly technologies: string;
  /** JSON array of FundingRound, as sent. */
  readonly funding_rounds: string;
}

/** The fields of a Company Reveal result; undefined when its output is missing or not an object. */
export function readCompanyReveal(envelope: unknown): CompanyRevealFields | undefined {
  const output = recordAt(asRecord(envelope), 'output');
  if (output === undefined) return undefined;
  const geo = recordAt(output, 'ip_geo');
  const company = recordAt(output, 'company');
  const funding = recordAt(company, 'funding_details');
  return {
    ip: textAt(output, 'ip'),
    ip_type: textAt(output, 'type'),
    confidence_score: textAt(output, 'confidence_score'),
    ip_geo_city: textAt(geo, 'city'),
    ip_geo_state: textAt(geo, 'state'),
    ip_geo_country: textAt(geo, 'country'),
    company_id: textAt(company, 'id'),
    domain: textAt(company, 'domain'),
    name: textAt(company, 'name'),
    website: textAt(company, 'website'),
    linkedin_id: textAt(company, 'linkedin_id'),
    description: textAt(company, 'description'),
    logo_url: textAt(company, 'logo_url'),
    size: textAt(company, 'size'),
    employees_count: int32At(company, 'employees_count'),
    industry: textAt(company, 'industry'),
    company_type: textAt(company, 'type'),
    founded: int32At(company, 'founded'),
    address: textAt(company, 'address'),
    country: textAt(company, 'country'),
    linkedin_url: textAt(company, 'linkedin_url'),
    linkedin_followers: int32At(company, 'linkedin_followers'),
    crunchbase_url: textAt(company, 'crunchbase_url'),
    recent_job_posting_count: int32At(company, 'recent_job_posting_count'),
    total_funding_rounds: int32At(funding, 'total_funding_rounds'),
    total_funding_usd: int64DigitsAt(funding, 'total_funding_usd'),
    technologies: jsonArrayAt(company, 'technologies'),
    funding_rounds: jsonArrayAt(funding, 'funding_rounds'),
  };
}

/** The row for a Company Reveal envelope; none when its output is missing or not an object. */
export function normalizeCompanyReveal(envelope: unknown, jobId: string, receivedAt: string): CompanyRow[] {
  const root = asRecord(envelope);
  const output = recordAt(root, 'output');
  if (output === undefined) return [];
  const company = recordAt(output, 'company');
  return [
    {
      job_id: jobId,
      company_id: textAt(company, 'id'),
      domain: textAt(company, 'domain'),
      name: textAt(company, 'name'),
      custom_fields: jsonObjectAt(recordAt(recordAt(root, 'input'), 'task'), 'custom_fields'),
      received_at: receivedAt,
    },
  ];
}
