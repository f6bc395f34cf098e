/**
 * The companies source: every Company Reveal result (the company, empty when none was found, and the
 * reveal's IP details).
 */
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
  fields: defineFields([
    ['job_id', 'text', 'the job_id of the Company Reveal job', '{c}.job_id'],
    ['received_at', 'text', 'when hooksync stored the job (ISO 8601, UTC)', '{c}.received_at'],
    ['ip', 'text', 'output.ip', '{c}.ip'],
    ['ip_type', 'text', 'output.type (company, education, government, isp)', '{c}.ip_type'],
    ['confidence_score', 'text', 'output.confidence_score', '{c}.confidence_score'],
    ['ip_geo.city', 'text', 'output.ip_geo.city (where the IP is, not the company)', '{c}.ip_geo_city'],
    ['ip_geo.state', 'text', 'output.ip_geo.state', '{c}.ip_geo_state'],
    ['ip_geo.country', 'text', 'output.ip_geo.country', '{c}.ip_geo_country'],
    ['id', 'text', 'company.id', '{c}.company_id'],
    ['domain', 'text', 'company.domain', '{c}.domain'],
    ['name', 'text', 'company.name', '{c}.name'],
    ['website', 'text', 'company.website', '{c}.website'],
    ['linkedin_id', 'text', 'company.linkedin_id', '{c}.linkedin_id'],
    ['description', 'text', 'company.description', '{c}.description'],
    ['logo_url', 'text', 'company.logo_url', '{c}.logo_url'],
    ['size', 'text', 'company.size (employee bucket, e.g. 1001-5000)', '{c}.size'],
    ['employees_count', 'integer', 'company.employees_count', '{c}.employees_count'],
    ['industry', 'text', 'company.industry', '{c}.industry'],
    ['type', 'text', 'company.type', '{c}.company_type'],
    ['founded', 'integer', 'company.founded (year)', '{c}.founded'],
    ['address', 'text', 'company.address', '{c}.address'],
    ['country', 'text', 'company.country (full name)', '{c}.country'],
    ['linkedin_url', 'text', 'company.linkedin_url', '{c}.linkedin_url'],
    ['linkedin_followers', 'integer', 'company.linkedin_followers', '{c}.linkedin_followers'],
    ['crunchbase_url', 'text', 'company.crunchbase_url', '{c}.crunchbase_url'],
    [
      'recent_job_posting_count',
      'integer',
      'company.recent_job_posting_count',
      '{c}.recent_job_posting_count',
    ],
    [
      'total_funding_rounds',
      'integer',
      'company.funding_details.total_funding_rounds',
      '{c}.total_funding_rounds',
    ],
    [
      'total_funding_usd',
      'text',
      'company.funding_details.total_funding_usd (int64, all digits)',
      '{c}.total_funding_usd',
    ],
    ['technologies', 'json', 'company.technologies (JSON array of strings)', '{c}.technologies'],
    ['funding_rounds', 'json', 'company.funding_details.funding_rounds (JSON array)', '{c}.funding_rounds'],
    ['task.custom_fields', 'json', 'input.task.custom_fields (JSON object)', '{c}.custom_fields'],
  ]),
};
