/**
 * A service that answers every Company Reveal with a valid but large job (a company with thousands of
 * funding rounds: many small objects, the shape that grows most once parsed), each under a fresh job_id.
 * The body is built once; each answer is a copy with its own job_id. Other paths answer 404.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running upstream. */
export interface LargeRevealUpstream {
  readonly url: string;
  /** Answers sent so far. */
  answers(): number;
  /** Size of each answer, in bytes. */
  readonly answerBytes: number;
  close(): Promise<void>;
}

const PLACEHOLDER = '00000000-0000-4000-8000-000000000000';

/**
 * Starts the upstream; each answer holds `rounds` funding rounds, each about 120 bytes plus
 * `roundNameBytes` (default 8: "Series A").
 */
export async function startLargeRevealUpstream(
  rounds: number,
  roundNameBytes = 8,
): Promise<LargeRevealUpstream> {
  const round = {
    round_name: 'Series A'.padEnd(roundNameBytes, '+'),
    round_date: '2020-01-01',
    investor_count: 2,
    amount_raised_usd: 1000000,
    investor_names: ['Alpha', 'Beta'],
  };
  const envelope = {
    status: 'SUCCEEDED',
    start_date: '2026-11-26T10:00:00.000000+00:00',
    stop_date: '2026-11-26T10:00:01.000000+00:00',
    input: {
      task: {
        ip: '203.0.113.1',
        webhook_url: null,
        custom_fields: {},
        job_id: PLACEHOLDER,
        context_id: randomUUID(),
      },
    },
    output: {
      ip: '203.0.113.1',
      type: 'company',
      confidence_score: 'high',
      ip_geo: { city: 'Paris', state: null, country: 'France' },
      company: {
        id: randomUUID(),
        domain: 'example.com',
        name: 'Example',
        website: 'https://example.com',
        linkedin_id: null,
        description: null,
        logo_url: null,
        size: '1001-5000',
        employees_count: 2000,
        industry: null,
        type: null,
        founded: 2000,
        address: '1 rue de la Paix',
        country: 'France',
        linkedin_url: null,
        linkedin_followers: null,
        crunchbase_url: null,
        funding_details: {
          total_funding_rounds: rounds,
          total_funding_usd: rounds * 1000000,
          funding_rounds: Array.from({ length: rounds }, () => round),
        },
        recent_job_posting_count: null,
        technologies: [],
      },
      usage: {
        total_usd: 0.03,
        balance_remaining_usd: 100,
        persons_count: 0,
        persons_usd: 0,
        phones_count: 0,
        phones_usd: 0,
        companies_count: 1,
        companies_usd: 0.03,
      },
    },
  };
  const template = Buffer.from(JSON.stringify(envelope));
  const at = template.indexOf(PLACEHOLDER);
  let answers = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/company-reveal') {
        res.writeHead(404).end();
        return;
      }
      answers += 1;
      const body = Buffer.from(template);
      body.write(randomUUID(), at, 'latin1');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers: () => answers,
    answerBytes: template.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
