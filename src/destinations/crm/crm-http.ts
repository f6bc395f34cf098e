/**
 * The one HTTP core of the CRM clients: each try waits for its slot in the pace first, counts itself, sends
 * JSON, reads the answer (errors included) under a size cap through the capped reader, parses it, and turns
 * an answer that is not a success into a `CrmError` the adapter's `classify` decides. Tries are retried by
 * the adapter's policy (`crm-retry.ts`). Credentials only ever go into the headers the adapter gives.
 */
import { type AnswerLimits, answerCap, reserveAnswer } from '../../client/answer-budget.js';
import { readCappedBody } from '../../client/read-capped-body.js';
import { parseRetryAfterSeconds } from '../../client/retry-after.js';
import { CrmError, type CrmTrouble, ResponseReadError } from '../../errors.js';
import type { Pace } from '../shared-pace.js';
import type { CallCounter } from './crm-counters.js';
import { type CrmRetryPolicy, policyFor, withCrmRetries } from './crm-retry.js';

/** Largest CRM answer read: far above a page of 200 records or a portal's property definitions. */
export const DEFAULT_MAX_CRM_ANSWER_BYTES = 8 * 1024 * 1024;

/** A non-2xx answer, for the adapter to classify. */
export interface TroubleAnswer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
  /** The Retry-After header read, in ms, when given. */
  readonly retryAfterMs: number | undefined;
}

/** Settings and collaborators of one CRM client. */
export interface CrmHttpConfig {
  /** The CRM's name, in messages. */
  readonly crm: string;
  readonly baseUrl: string;
  /** Sent with every call (the credentials). */
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: typeof globalThis.fetch;
  readonly now: () => number;
  /** The pace a call to `path` waits for (a CRM may pace search apart). */
  readonly paceFor: (path: string) => Pace;
  readonly counter: CallCounter;
  readonly retry: CrmRetryPolicy;
  /** What a non-2xx answer means. */
  classify(answer: TroubleAnswer): CrmTrouble;
  /** Reads what every answer's headers tell (a daily allowance); optional. */
  onHeaders?(headers: Headers): void;
  /** Largest answer read (default {@link DEFAULT_MAX_CRM_ANSWER_BYTES}). */
  readonly maxAnswerBytes?: number;
  /** serve's answer budget and the plan's cap on one answer (lowers `maxAnswerBytes`); none: the cap alone. */
  readonly answers?: AnswerLimits | undefined;
}

/** The answer of a successful call (2xx, 207 included), its JSON body parsed but not yet checked. */
export interface CrmAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** A paced, counted, retried CRM client. */
export interface CrmHttp {
  /**
   * One call (tried again by the retry policy). `answerSignal`: what the answer is awaited under once the
   * call is sent, when not `signal` (a create's answer outlives the attempt's timeout: its id is needed).
   */
  request(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    body: unknown,
    signal: AbortSignal,
    answerSignal?: AbortSignal,
  ): Promise<CrmAnswer>;
}

/**
 * What a call that got no whole answer comes to: a body over the cap or cut off, a timeout, a network
 * error; each a retryable CrmError. `what` prefixes the message (the call), when given.
 */
export function sendFailure(error: unknown, signal: AbortSignal, what?: string): CrmError {
  const prefix = what === undefined ? '' : `${what}: `;
  if (error instanceof ResponseReadError && !signal.aborted)
    return new CrmError(null, { kind: 'retry', error: error.message }, { cause: error });
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  const why = signal.aborted ? 'timed out' : `network error${typeof code === 'string' ? ` (${code})` : ''}`;
  return new CrmError(null, { kind: 'retry', error: `${prefix}${why}` }, { cause: error });
}

/** Creates the client. */
export function createCrmHttp(config: CrmHttpConfig): CrmHttp {
  const base = config.baseUrl.replace(/\/+$/, '');
  const maxBytes = answerCap(config.maxAnswerBytes ?? DEFAULT_MAX_CRM_ANSWER_BYTES, config.answers);
  /**
   * One try: paced and sent under `signal`; its answer awaited under `answer` (a create's answer, whose id
   * only it tells, is read to its end even when the attempt's time ran out meanwhile).
   */
  const once = async (
    method: string,
    path: string,
    body: unknown,
    signal: AbortSignal,
    answer: AbortSignal = signal,
  ) => {
    await config.paceFor(path).wait(signal);
    if (signal.aborted) throw sendFailure(signal.reason, signal);
    config.counter.call();
    // The answer's bytes are held in serve's answer budget from before its body is read until it is parsed.
    const held: { release?: () => void } = {};
    try {
      return await answerOf(method, path, body, answer, held);
    } finally {
      held.release?.();
    }
  };
  const answerOf = async (
    method: string,
    path: string,
    body: unknown,
    answer: AbortSignal,
    held: { release?: () => void },
  ): Promise<CrmAnswer> => {
    let response: Response | undefined;
    let text: string;
    try {
      response = await config.fetch(`${base}${path}`, {
        method,
        headers: {
          ...config.headers,
          accept: 'application/json',
          'user-agent': 'hooksync-destinations',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        redirect: 'manual',
        signal: answer,
      });
      held.release = await reserveAnswer(
        config.answers,
        response.headers.get('content-length'),
        maxBytes,
        answer,
      );
      text = new TextDecoder().decode(
        await readCappedBody(response, {
          maxBytes,
          signal: answer,
          what: `${config.crm}'s answer to ${method} ${path}`,
        }),
      );
    } catch (error) {
      // An answer never read (the wait for the budget was cut short) must not hold its connection.
      response?.body?.cancel().catch(() => undefined);
      throw sendFailure(error, answer);
    }
    config.onHeaders?.(response.headers);
    if (response.status >= 200 && response.status < 300) {
      try {
        return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
      } catch (error) {
        throw new CrmError(
          response.status,
          { kind: 'retry', error: `${config.crm} answered with no JSON` },
          { cause: error },
        );
      }
    }
    const seconds = parseRetryAfterSeconds(response.headers.get('retry-after'), undefined, config.now());
    const trouble = config.classify({
      status: response.status,
      text,
      headers: response.headers,
      retryAfterMs: seconds === undefined ? undefined : Math.round(seconds * 1000),
    });
    if (trouble.kind === 'wait') config.counter.rateLimited(trouble.policy);
    throw new CrmError(response.status, trouble);
  };
  return {
    request: (method, path, body, signal, answerSignal) =>
      // The tries stop at the answer's signal: the attempt's is heeded before each send (`once`).
      withCrmRetries(policyFor(config.retry, method), answerSignal ?? signal, () =>
        once(method, path, body, signal, answerSignal),
      ),
  };
}
