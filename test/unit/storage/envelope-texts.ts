/**
 * Envelope texts for the storage tests, written by hand so that their exact bytes matter: odd spacing,
 * \u escapes, microsecond dates with offsets and an int64 beyond 2^53 all have to survive storage.
 */

/** A deterministic UUID for test number `n`. */
export function testUuid(n: number, prefix = '0000000a'): string {
  return `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Options shared by the builders. */
export interface EnvelopeTextOptions {
  status?: string;
  /** Leave output out (a RUNNING job). */
  withoutOutput?: boolean;
}

const USAGE = `{"total_usd":0.05,"balance_remaining_usd":99.95,"persons_count":1,"persons_usd":0.05,
 "phones_count":0,"phones_usd":0,"companies_count":0,"companies_usd":0}`;

function stopDate(status: string): string {
  return status === 'RUNNING' ? '' : `"stop_date" : "2026-03-04T10:11:13.654321+02:00",`;
}

/** A Company Reveal envelope: full Company with funding rounds and an int64 of 9007199254740993. */
export function companyRevealText(jobId: string, options: EnvelopeTextOptions = {}): string {
  const status = options.status ?? 'SUCCEEDED';
  const output = options.withoutOutput
    ? ''
    : `,
  "output":{ "ip":"203.0.113.7","type":"company","confidence_score":"high",
    "ip_geo":{"city":"M\\u00fcnchen","state":"Bavaria","country":"Germany"},
    "company":{"id":"${testUuid(7, 'c0000000')}","domain":"acme.example","name":"Acme \\"Rockets\\" GmbH",
      "website":"https://acme.example","linkedin_id":"acme-rockets","description":"Line one\\nline two \\u2603",
      "logo_url":"https://acme.example/logo.png","size":"1001-5000","employees_count":1234,"industry":"Aerospace",
      "type":"Privately Held","founded":1999,"address":"1 Rocket Road","country":"Germany",
      "linkedin_url":"https://www.linkedin.com/company/acme-rockets","linkedin_followers":4321,
      "crunchbase_url":null,"recent_job_posting_count":12,"technologies":["React","Kysely"],
      "funding_details":{"total_funding_rounds":2,"total_funding_usd":9007199254740993,
        "funding_rounds":[{"round_name":"Series A","round_date":"2020-01-31","investor_count":3,
          "amount_raised_usd":9007199254740993,"investor_names":["Ann Ventures","Bob Capital"]}]}},
    "usage":${USAGE}}`;
  return `{ "status" :  "${status}",   "start_date":"2026-03-04T10:11:12.123456+00:00", ${stopDate(status)}
  "input":{"task":{ "ip":"203.0.113.7","webhook_url":null,"custom_fields":{"crm_id":"caf\\u00e9","n":1},
    "job_id":"${jobId}","context_id":"${testUuid(1, 'cccccccc')}"}}${output}
}`;
}

/** A Company Reveal envelope whose IP has no company behind it (`company: {}`). */
export function companyRevealEmptyText(jobId: string): string {
  return `{"status":"SUCCEEDED","start_date":"2026-03-04T10:11:12.000001+00:00","stop_date":"2026-03-04T10:11:12.500000+00:00",
"input":{"task":{"ip":"198.51.100.1","webhook_url":null,"custom_fields":{},"job_id":"${jobId}","context_id":"${testUuid(2, 'cccccccc')}"}},
"output":{"ip":"198.51.100.1","type":"isp","confidence_score":"low","ip_geo":{"city":null,"state":null,"country":"France"},
"company":{},"usage":${USAGE}}}`;
}

/** A Job Change envelope: moved (with a person and experiences) or no_change (person `{}`). */
export function jobChangeText(
  jobId: string,
  options: EnvelopeTextOptions & { change?: 'moved' | 'no_change' } = {},
): string {
  const status = options.status ?? 'SUCCEEDED';
  const change = options.change ?? 'moved';
  const person =
    change === 'moved'
      ? `{"id":"${testUuid(9, 'b0000000')}","first_name":"Zo\\u00eb","last_name":"O'Neil","linkedin_id":"zoe-oneil",
    "linkedin_url":"https://www.linkedin.com/in/zoe-oneil","about":null,"location":"Lyon","country":"France",
    "company_linkedin_id":"new-co","company_name":"NewCo","company_domain":"newco.example","title":"VP Sales",
    "seniority":"Vice President","department":"Sales","experiences":[
      {"title":"VP Sales","company_name":"NewCo","company_domain":"newco.example","start_year":2025,"start_month":2,"start_date":"2025-02-01","is_current":true},
      {"title":"Intern","company_name":"FirstCo","company_domain":"first.example","start_year":2010,"start_month":1,"start_date":"2010-01-01","end_year":2011,"end_month":6,"end_date":"2011-06-30","is_current":false},
      {"title":"Sales Director","company_name":"OldCo","company_domain":"oldco.example","start_year":2018,"start_month":5,"start_date":"2018-05-01","end_year":2025,"end_month":1,"end_date":"2025-01-31","is_current":false}]}`
      : '{}';
  const output = options.withoutOutput
    ? ''
    : `,"output":{"job_change_status":"${change}","person":${person},"usage":${USAGE}}`;
  return `{"status":"${status}","start_date":"2026-03-04T10:11:12.123456-05:00",${stopDate(status)}
 "input":{"task":{"company_domain":"oldco.example","company_linkedin":null,"professional_email":"zoe@oldco.example",
 "personal_email":null,"contact_linkedin":"https://www.linkedin.com/in/zoe-oneil","contact_full_name":"Zo\\u00eb O'Neil",
 "custom_fields":{"hubspot_id":"42"},"job_id":"${jobId}","context_id":"${testUuid(3, 'cccccccc')}"}}${output}}`;
}

function searchPerson(index: number): string {
  return `{"id":"${testUuid(100 + index, 'b0000000')}","first_name":"Person${index}","last_name":"N\\u00e9e",
   "linkedin_id":"person-${index}","linkedin_url":"https://www.linkedin.com/in/person-${index}","about":null,
   "personal_email":null,"location":"Berlin","country":"Germany","company_id":"${testUuid(5, 'c0000000')}",
   "company_linkedin_id":"acme","company_name":"Acme","company_domain":"acme.example","professional_email":null,
   "mobile_phone":null,"phone_numbers":[],"title":"Head of Sales","seniority":"Director","department":"Sales",
   "experiences":[{"title":"Head of Sales","location":null,"company_name":"Acme","company_linkedin_id":"acme",
   "company_linkedin_url":null,"company_domain":"acme.example","start_year":2021,"start_month":3,
   "start_date":"2021-03-01","end_year":null,"end_month":null,"end_date":null,"is_current":true,"description":null}],
   "email_verified":null,"email_confidence":null,"email_verified_status":null,"domain_age_days":null,
   "smtp_provider":null,"mx_record":null}`;
}

/** A Search Contact page of `persons` persons (company-specific search on acme.example). */
export function searchContactText(jobId: string, persons = 2, options: EnvelopeTextOptions = {}): string {
  const status = options.status ?? 'SUCCEEDED';
  const list = Array.from({ length: persons }, (_, i) => searchPerson(i)).join(',\n  ');
  const output = options.withoutOutput ? '' : `,"output":{"persons":[\n  ${list}],"usage":${USAGE}}`;
  return `{"status":"${status}","start_date":"2026-03-04T10:11:12.999999+00:00",${stopDate(status)}
"input":{"task":{"domain":"acme.example","seniorities":["Director"],"page_number":1,"page_size":${Math.max(1, Math.min(250, persons))},
"custom_fields":{},"job_id":"${jobId}","context_id":"${testUuid(4, 'cccccccc')}"}}${output}}`;
}

/** An envelope of a kind this version does not know (a task and output with unfamiliar members). */
export function unknownKindText(jobId: string): string {
  return `{"status":"SUCCEEDED","start_date":"2026-03-04T10:11:12.123456+00:00","stop_date":"2026-03-04T10:11:12.223456+00:00",
"input":{"task":{"phone":"+33100000000","custom_fields":{},"job_id":"${jobId}","context_id":"${testUuid(6, 'cccccccc')}"}},
"output":{"carrier":"Example Telecom"}}`;
}
