/**
 * The companies row of a Company Reveal envelope: what the service knows about the IP (ip, type,
 * confidence_score, ip_geo: always) and the company behind it (null fields when company is `{}`).
 */
import type { CompaniesTable } from './database.js';
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

/** The row for a Company Reveal envelope; none when its output is missing or not an object. */
export function normalizeCompanyReveal(envelope: unknown, jobId: string, receivedAt: string): CompanyRow[] {
  const root = asRecord(envelope);
  const output = recordAt(root, 'output');
  if (output === undefined) return [];
  const geo = recordAt(output, 'ip_geo');
  const company = recordAt(output, 'company');
  const funding = recordAt(company, 'funding_details');
  return [
    {
      job_id: jobId,
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
      custom_fields: jsonObjectAt(recordAt(recordAt(root, 'input'), 'task'), 'custom_fields'),
      received_at: receivedAt,
    },
  ];
}
