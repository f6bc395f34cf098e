/**
 * The three launchers: Company Reveal (POST /v1/company-reveal, as the interface shows it) and the
 * Search Contact and Job Change launchers, whose paths the interface does not show; the simulator serves
 * them at POST /v1/search/contact and POST /v1/job/change (design notes, "The simulator").
 */
import type { RequestHandler } from 'express';
import type { JobChangeRequest, SearchContactRequest } from '../contract/requests.js';
import {
  jobChangeTaskEcho,
  parseCompanyRevealRequest,
  parseJobChangeRequest,
  parseSearchContactRequest,
} from '../contract/requests.js';
import type { JobRunner } from './job-runner.js';
import { PRICE_TABLE_MICROS } from './price-table.js';
import { sendJobText } from './send-error.js';
import type { SimJobKind } from './sim-job-store.js';
import { readJsonBody } from './sim-middleware.js';

/** Paths of the launchers. */
export const LAUNCHER_PATHS = Object.freeze({
  company_reveal: '/v1/company-reveal',
  search_contact: '/v1/search/contact',
  job_change: '/v1/job/change',
});

/** What the launchers ask of the synthetic data (src/simulator/data). */
export interface SimWorld {
  revealCompany(ip: string): { readonly company: object };
  searchContacts(request: SearchContactRequest): { readonly persons: readonly unknown[] };
  jobChange(request: JobChangeRequest): { readonly job_change_status: string; readonly person: object };
}

/** Handlers of the launchers, keyed by job kind. */
export function createLauncherHandlers(
  world: SimWorld,
  runner: JobRunner,
): Record<SimJobKind, RequestHandler> {
  const companyReveal: RequestHandler = (req, res) => {
    const request = parseCompanyRevealRequest(readJsonBody(req));
    const reveal = world.revealCompany(request.ip);
    // Company object or {} (Company Reveal output): an empty company is not charged.
    const companies = Object.keys(reveal.company).length > 0 ? 1 : 0;
    const counts = { persons: 0, personUnitMicros: 0, phones: 0, companies };
    sendJobText(res, runner.launch({ kind: 'company_reveal', request, output: { ...reveal }, counts }));
  };

  const searchContact: RequestHandler = (req, res) => {
    const request = parseSearchContactRequest(readJsonBody(req));
    const { persons } = world.searchContacts(request);
    const counts = {
      persons: persons.length,
      personUnitMicros: PRICE_TABLE_MICROS.search_contact_person,
      phones: 0,
      companies: 0,
    };
    // Search Contact output: persons and usage only (the data module's total is not part of it).
    sendJobText(res, runner.launch({ kind: 'search_contact', request, output: { persons }, counts }));
  };

  const jobChange: RequestHandler = (req, res) => {
    const request = parseJobChangeRequest(readJsonBody(req));
    const { job_change_status, person } = world.jobChange(request);
    // One contact checked per job, whatever the answer.
    const counts = {
      persons: 1,
      personUnitMicros: PRICE_TABLE_MICROS.job_change_person,
      phones: 0,
      companies: 0,
    };
    sendJobText(
      res,
      runner.launch({
        kind: 'job_change',
        request,
        echo: jobChangeTaskEcho(request),
        output: { job_change_status, person },
        counts,
      }),
    );
  };

  return { company_reveal: companyReveal, search_contact: searchContact, job_change: jobChange };
}
