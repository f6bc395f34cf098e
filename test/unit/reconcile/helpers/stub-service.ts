/**
 * A stand-in for the service's finders on a real socket (test/helpers/http-stub-server.ts), answering
 * from a per-job script, for the outcomes the simulator does not produce on demand.
 */
import { readFileSync } from 'node:fs';
import {
  type HttpStubServer,
  jsonReply,
  type StubAction,
  startHttpStubServer,
} from '../../../helpers/http-stub-server.js';

const template = readFileSync(
  new URL('../../../fixtures/envelopes/job-change-moved.json', import.meta.url),
  'utf8',
);

/** A Job Change envelope text for `jobId` with `status` (RUNNING drops stop_date and output). */
export function jobChangeText(jobId: string, status = 'SUCCEEDED'): string {
  const envelope = JSON.parse(template) as Record<string, unknown> & { input: { task: { job_id: string } } };
  envelope.input.task.job_id = jobId;
  envelope.status = status;
  if (status === 'RUNNING') {
    delete envelope.stop_date;
    delete envelope.output;
  }
  return JSON.stringify(envelope);
}

/** The interface's error object. */
export function errorReply(status: number, code: string, message = code): StubAction {
  const category = code.startsWith('NOT_FOUND')
    ? 'NOT_FOUND'
    : code.startsWith('RATE_LIMIT')
      ? 'RATE_LIMIT'
      : code.split('_')[0]!;
  return jsonReply(status, { status: 'error', message, category, code });
}

/** What a finder answers for one job: an action, or a function of how many times it was asked. */
export type FinderScript = StubAction | ((hit: number) => StubAction);

/** The stub plus the finder hits per job id. */
export interface StubService {
  readonly server: HttpStubServer;
  readonly url: string;
  /** `kind:jobId` → number of finder requests. */
  hits(jobId: string, kind?: 'job_change' | 'search_contact'): number;
  close(): Promise<void>;
}

/**
 * Starts the stub. `scripts['job_change:<id>']` (or `'<id>'` for either finder) decides each answer;
 * an unscripted job is 404 NOT_FOUND_JOB_NOT_FOUND. GET /v1/api-keys answers `apiKeys`.
 */
export async function startStubService(
  scripts: Record<string, FinderScript>,
  apiKeys: StubAction = jsonReply(200, {
    api_keys: [
      {
        api_key: '5f0e1d2c-3b4a-4596-8877-665544332211',
        active: true,
        notes: 'master',
        master: true,
        per_interval: 1000,
        interval_seconds: 1,
      },
    ],
  }),
): Promise<StubService> {
  const counts = new Map<string, number>();
  const server = await startHttpStubServer((request) => {
    if (request.path === '/v1/api-keys') return apiKeys;
    const kind =
      request.path === '/v1/job/change'
        ? 'job_change'
        : request.path === '/v1/search/contact'
          ? 'search_contact'
          : undefined;
    const jobId = request.query.get('job_id') ?? '';
    if (kind === undefined) return errorReply(404, 'ROUTING_INVALID_PATH_OR_METHOD');
    const key = `${kind}:${jobId}`;
    const hit = (counts.get(key) ?? 0) + 1;
    counts.set(key, hit);
    const script = scripts[key] ?? scripts[jobId];
    if (script === undefined) return errorReply(404, 'NOT_FOUND_JOB_NOT_FOUND', `Job ${jobId} not found`);
    return typeof script === 'function' ? script(hit) : script;
  });
  return {
    server,
    url: server.url,
    hits: (jobId, kind) =>
      kind
        ? (counts.get(`${kind}:${jobId}`) ?? 0)
        : (counts.get(`job_change:${jobId}`) ?? 0) + (counts.get(`search_contact:${jobId}`) ?? 0),
    close: () => server.close(),
  };
}
