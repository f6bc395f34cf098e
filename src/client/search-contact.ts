/**
 * Search Contact: the finder GET /v1/search/contact?job_id= (Endpoints part) and the launcher, whose path
 * the interface does not show (configurable; the simulator serves POST /v1/search/contact).
 */
import { parseSearchContactRequest, type SearchContactRequestInput } from '../contract/requests.js';
import { createJobResource, type JobResource } from './job-resource.js';
import type { RequestCore } from './request-core.js';

/** Path of the Search Contact Finder. */
export const SEARCH_CONTACT_FINDER_PATH = '/v1/search/contact';
/** Default path of the Search Contact Launcher (not shown by the interface; the simulator's choice). */
export const DEFAULT_SEARCH_CONTACT_LAUNCH_PATH = '/v1/search/contact';

/** Search Contact calls. */
export type SearchContactResource = JobResource<SearchContactRequestInput>;

/** The Search Contact resource over one request core. */
export function createSearchContactResource(deps: {
  request: RequestCore;
  launchPath: string;
  paced: boolean;
}): SearchContactResource {
  return createJobResource({
    ...deps,
    finderPath: SEARCH_CONTACT_FINDER_PATH,
    validate: parseSearchContactRequest,
  });
}
