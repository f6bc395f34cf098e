/**
 * The companies source: every Company Reveal result (the company, empty when none was found, and the
 * reveal's IP details). The table holds what rows are filtered, ordered and deduplicated by; every other
 * field is read from the stored envelope.
 */
import { readCompanyReveal } from '../storage/normalize-company.js';
import { defineFields } from './define-fields.js';
import type { ExportSource } from './export-sources.js';

/** Company Reveal results. */
export const COMPANIES_SOURCE: ExportSource = {
  name: 'companies',
  description: 'Company Reveal results: the company behind an IP, with the IP geolocation',
  kinds: ['company_reveal'],
  branches: [
    {
      from: 'companies {c}',
      where: undefined,
      kinds: ['company_reveal'],
      kind: "'company_reveal'",
      receivedAt: '{c}.received_at',
      jobId: '{c}.job_id',
      position: '0',
      jobChangeStatus: undefined,
      isJobChange: '1 = 0',
      windowKey: "COALESCE({c}.company_id, {c}.domain, 'row:' || {c}.job_id)",
    },
  ],
  fromEnvelope: (envelope) => readCompanyReveal(envelope),
  fields: defineFields([
    ['job_id', 'text', 'the job_id of the Company Reveal job', '{c}.job_id'],
    ['received_at', 'timestamp', 'when hooksync stored the job (ISO 8601, UTC)', '{c}.received_at'],
    ['ip', 'text', 'output.ip', 'envelope:ip'],
    ['ip_type', 'text', 'output.type (company, education, government, isp)', 'envelope:ip_type'],
    ['confidence_score', 'text', 'output.confidence_score', 'envelope:confidence_score'],
    ['ip_geo.city', 'text', 'output.ip_geo.city (where the IP is, not the company)', 'envelope:ip_geo_city'],
    ['ip_geo.state', 'text', 'output.ip_geo.state', 'envelope:ip_geo_state'],
    ['ip_geo.country', 'text', 'output.ip_geo.country', 'envelope:ip_geo_country'],
    ['id', 'text', 'company.id', '{c}.company_id'],
    ['domain', 'text', 'company.domain', '{c}.domain'],
    ['name', 'text', 'company.name', '{c}.name'],
    ['website', 'text', 'company.website', 'envelope:website'],
    ['linkedin_id', 'text', 'company.linkedin_id', 'envelope:linkedin_id'],
    ['description', 'text', 'company.description', 'envelope:description'],
    ['logo_url', 'text', 'company.logo_url', 'envelope:logo_url'],
    ['size', 'text', 'company.size (employee bucket, e.g. 1001-5000)', 'envelope:size'],
    ['employees_count', 'integer', 'company.employees_count', 'envelope:employees_count'],
    ['industry', 'text', 'company.industry', 'envelope:industry'],
    ['type', 'text', 'company.type', 'envelope:company_type'],
    ['founded', 'integer', 'company.founded (year)', 'envelope:founded'],
    ['address', 'text', 'company.address', 'envelope:address'],
    ['country', 'text', 'company.country (full name)', 'envelope:country'],
    ['linkedin_url', 'text', 'company.linkedin_url', 'envelope:linkedin_url'],
    ['linkedin_followers', 'integer', 'company.linkedin_followers', 'envelope:linkedin_followers'],
    ['crunchbase_url', 'text', 'company.crunchbase_url', 'envelope:crunchbase_url'],
    [
      'recent_job_posting_count',
      'integer',
      'company.recent_job_posting_count',
      'envelope:recent_job_posting_count',
    ],
    [
      'total_funding_rounds',
      'integer',
      'company.funding_details.total_funding_rounds',
      'envelope:total_funding_rounds',
    ],
    [
      'total_funding_usd',
      'text',
      'company.funding_details.total_funding_usd (int64, all digits)',
      'envelope:total_funding_usd',
    ],
    ['technologies', 'json', 'company.technologies (JSON array of strings)', 'envelope:technologies'],
    [
      'funding_rounds',
      'json',
      'company.funding_details.funding_rounds (JSON array)',
      'envelope:funding_rounds',
    ],
    ['task.custom_fields', 'json', 'input.task.custom_fields (JSON object)', '{c}.custom_fields'],
  ]),
};
