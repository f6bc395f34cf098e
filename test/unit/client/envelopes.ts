/**
 * Small job envelopes shaped like the interface's (Job envelope, Job Change task and output), for the
 * client tests; the contract's own fixtures live in test/fixtures/envelopes.
 */
export const JOB_ID = '3f2c9a1e-6b7d-4c1a-9e2f-0a1b2c3d4e5f';
export const CONTEXT_ID = 'b5e6f7a8-1c2d-4e3f-8a9b-0c1d2e3f4a5b';

export const USAGE = {
  total_usd: 0.02,
  balance_remaining_usd: 99.98,
  persons_count: 1,
  persons_usd: 0.02,
  phones_count: 0,
  phones_usd: 0,
  companies_count: 0,
  companies_usd: 0,
};

/** A finished Job Change job whose contact did not move. */
export function jobChangeEnvelope(jobId = JOB_ID): Record<string, unknown> {
  return {
    status: 'SUCCEEDED',
    start_date: '2026-03-04T10:11:12.123456+00:00',
    stop_date: '2026-03-04T10:11:13.654321+00:00',
    input: {
      task: {
        company_domain: 'acme.com',
        company_linkedin: null,
        professional_email: null,
        personal_email: null,
        contact_linkedin: 'https://www.linkedin.com/in/jane-doe',
        contact_full_name: null,
        custom_fields: {},
        job_id: jobId,
        context_id: CONTEXT_ID,
      },
    },
    output: { job_change_status: 'no_change', person: {}, usage: USAGE },
  };
}

/**
 * The same kind of envelope written the way no serializer would: odd spacing, tabs, \u escapes
 * (including a surrogate pair), raw non-ASCII and an int64 beyond 2^53.
 */
export const ODD_ENVELOPE_TEXT = `{ "status" :"SUCCEEDED",\n\t"start_date":  "2026-03-04T10:11:12.123456+00:00" ,
 "stop_date":"2026-03-04T10:11:13.000001-05:30",
  "input" : {"task":{"company_domain":"caf\\u00e9.example","company_linkedin":null,"professional_email":null,
  "personal_email":null,"contact_linkedin":"jane-\\ud83d\\ude00","contact_full_name":"Zoë Ærøskøbing",
  "custom_fields":{"crm_id":"A\\/B"},"job_id":"${JOB_ID}","context_id":"${CONTEXT_ID}"}},
  "output":{"job_change_status":"no_change","person":{ },"usage":{"total_usd":0.0,"balance_remaining_usd":1e2,
  "persons_count":9007199254740993,"persons_usd":0,"phones_count":0,"phones_usd":0,"companies_count":0,"companies_usd":0}}
}\n`;

/** An error object as the interface defines it. */
export function errorObject(code: string, category: string, message: string, error?: string | string[]) {
  return { status: 'error', message, category, code, ...(error === undefined ? {} : { error }) };
}
