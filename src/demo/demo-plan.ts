/**
 * What the demo launches, as a revenue-operations stack would: company reveals on website visitors' IPs,
 * contact searches at the companies revealed, then job-change checks on contacts already synced. Fixed
 * inputs, so that with the simulator's seed every run launches and receives the same jobs.
 */
import type { FaultRates } from '../simulator/delivery-faults.js';

/** Company reveals launched, one per website visitor. */
export const DEMO_COMPANY_REVEALS = 12;
/** Contact searches launched, at the companies the reveals found. */
export const DEMO_SEARCHES = 6;
/** Job-change checks launched, on contacts the searches synced. */
export const DEMO_JOB_CHANGES = 8;
/** Persons per search page. */
export const DEMO_PAGE_SIZE = 5;

/**
 * Fault rates of the demo's simulator. One draw per delivery picks at most one fault; the seed is chosen
 * (choose-fault-seed.ts) so that each fault lands where it shows something.
 */
export const DEMO_FAULT_RATES: Required<FaultRates> = Object.freeze({
  dropRate: 0.1,
  duplicateRate: 0.1,
  tamperRate: 0.1,
  unsignedRate: 0.1,
});

/** Searches and job changes answer RUNNING and call back this much later (Company Reveal is synchronous). */
export const DEMO_ASYNC_MS = 150;
/** The simulator's webhook retry backoff base: short, so that a retried delivery does not slow the tour. */
export const DEMO_RETRY_BASE_MS = 100;

/**
 * Visitors' addresses: twelve public IPv4 addresses in distinct /24 blocks (a block is one organisation),
 * none in a special-purpose range.
 */
export const DEMO_VISITOR_IPS: readonly string[] = Object.freeze(
  Array.from(
    { length: DEMO_COMPANY_REVEALS },
    (_, i) => `${11 + i * 17}.${(i * 53 + 7) % 256}.${(i * 97 + 3) % 256}.${1 + ((i * 29) % 254)}`,
  ),
);

/** Domains searched when fewer companies were revealed than searches planned. */
export const DEMO_FALLBACK_DOMAINS: readonly string[] = Object.freeze([
  'northwind-traders.com',
  'contoso-analytics.com',
  'fabrikam-robotics.com',
  'tailspin-logistics.com',
  'wingtip-media.com',
  'adventure-works.io',
]);

/** A contact of the user's CRM, to check for a job change. */
export interface DemoContact {
  readonly linkedin_url: string | null;
  readonly full_name: string | null;
  readonly company_domain: string | null;
}

/** The domains to search: those the reveals found first (each once), topped up with fallbacks. */
export function pickSearchDomains(revealedDomains: readonly (string | null)[], count: number): string[] {
  const domains: string[] = [];
  for (const domain of [...revealedDomains, ...DEMO_FALLBACK_DOMAINS]) {
    if (domains.length === count) break;
    if (domain !== null && domain.length >= 4 && !domains.includes(domain)) domains.push(domain);
  }
  return domains;
}

/**
 * The contacts to check: the first `count` distinct people synced so far, topped up with made-up
 * contacts at the searched domains when too few pages arrived.
 */
export function pickContacts(
  synced: readonly DemoContact[],
  domains: readonly string[],
  count: number,
): DemoContact[] {
  const contacts: DemoContact[] = [];
  const seen = new Set<string>();
  for (const contact of synced) {
    if (contacts.length === count) return contacts;
    const key = contact.linkedin_url ?? `${contact.full_name}@${contact.company_domain}`;
    if (seen.has(key)) continue;
    seen.add(key);
    contacts.push(contact);
  }
  for (let i = 0; contacts.length < count; i += 1) {
    contacts.push({
      linkedin_url: null,
      full_name: `Demo Contact ${i + 1}`,
      company_domain: domains[i % Math.max(1, domains.length)] ?? DEMO_FALLBACK_DOMAINS[0]!,
    });
  }
  return contacts;
}
