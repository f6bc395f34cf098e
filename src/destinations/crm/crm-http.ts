/**
 * The one HTTP core of the CRM clients: each try is admitted (an allocation a CRM reports), waits for its
 * slot in the pace, counts itself, is sent under the session (fixed credentials, or a session renewed once
 * and replayed when the CRM answers 401: Salesforce's OAuth token), reads the answer (errors included) under a
 * size cap and serve's answer budget, parses it while still held there, and turns an answer that is not a
 * success into a `CrmError` the adapter's `classify` decides. Tries are retried by the adapter's policy
 * (`crm-retry.ts`). Credentials only ever go into the headers the session gives.
 */
import type { z } from 'zod';
import { type AnswerLimits, answerCap, reserveAnswer } from '../../client/answer-budget.js';
import { readCappedBody } from '../../client/read-capped-body.js';
import { parseRetryAfterSeconds } from '../../client/retry-after.js';
import { CrmError, type CrmTrouble, ResponseReadError } from '../../errors.js';
import type { Pace } from '../shared-pace.js';
import { checkAnswer } from './check-answer.js';
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

/** Where a try goes and the credentials it carries (only ever in these headers). */
export interface CrmSession {
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A session granted on first use and renewed when the CRM refuses it (401): Salesforce's OAuth token. */
export interface CrmSessions {
  /** The current session. */
  session(signal: AbortSignal): Promise<CrmSession>;
  /** A new session in place of `stale`, which the CRM refused, and the call replayed once; `stale` itself: none. */
  renew(stale: CrmSession, signal: AbortSignal): Promise<CrmSession>;
}

/** Settings and collaborators of one CRM client. */
interface CrmHttpSettings {
  /** The CRM's name, in messages. */
  readonly crm: string;
  readonly fetch: typeof globalThis.fetch;
  readonly now: () => number;
  /** The pace a call to `path` waits for (a CRM may pace search apart); none: unpaced. */
  readonly paceFor?: ((path: string) => Pace) | undefined;
  /**
   * Throws the `CrmError` that holds a try back before it is sent (Salesforce's share of the org's
   * allocation); optional.
   */
  admit?(): void;
  readonly counter: CallCounter;
  readonly retry: CrmRetryPolicy;
  /** What a non-2xx answer means. */
  classify(answer: TroubleAnswer): CrmTrouble;
  /** Reads what every answer's headers tell (a daily allowance), once they are in; optional. */
  onHeaders?(headers: Headers): void;
  /** A failure to send or read names the call (`GET /path: network error`); default not. */
  readonly nameCalls?: boolean;
  /** Largest answer read (default {@link DEFAULT_MAX_CRM_ANSWER_BYTES}). */
  readonly maxAnswerBytes?: number;
  /** serve's answer budget and the plan's cap on one answer (lowers `maxAnswerBytes`); none: the cap alone. */
  readonly answers?: AnswerLimits | undefined;
}

/** A client's settings with its credentials: fixed ones (an API token), or renewable sessions. */
export type CrmHttpConfig = CrmHttpSettings &
  (
    | { readonly baseUrl: string; readonly headers: Readonly<Record<string, string>> }
    | { readonly sessions: CrmSessions }
  );

/** The answer of a successful call (2xx, 207 included), its JSON body parsed but not yet checked. */
export interface CrmAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One call: a JSON body, or text of another type (Salesforce Bulk's CSV). */
export interface CrmCall {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** Under the session's base URL, query included. */
  readonly path: string;
  readonly json?: unknown;
  readonly text?: { readonly body: string; readonly type: string } | undefined;
  /** Sent besides (and over) the usual ones: `accept: text/csv`. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** The longest array the answer may hold (its documented page); default the shape check's own. */
  readonly maxItems?: number | undefined;
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
  /**
   * One call whose JSON answer `schema` reads, after the bounded shape check (contract/answer-shape.ts), both
   * while the answer is held in serve's budget; an answer of another shape is a failed attempt.
   */
  json<S extends z.ZodType>(schema: S, call: CrmCall, signal: AbortSignal): Promise<z.output<S>>;
  /** One call whose answer is kept as text (a CSV). */
  text(call: CrmCall, signal: AbortSignal): Promise<{ readonly status: number; readonly text: string }>;
}

/**
 * What a call that got no whole answer comes to: a body over the cap or cut off, a timeout, a network
 * error; each a retryable CrmError. `what` prefixes the message (the call), when given.
 */
function sendFailure(error: unknown, signal: AbortSignal, what?: string): CrmError {
  const prefix = what === undefined ? '' : `${what}: `;
  if (error instanceof ResponseReadError && !signal.aborted)
    return new CrmError(null, { kind: 'retry', error: error.message }, { cause: error });
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  const why = signal.aborted ? 'timed out' : `network error${typeof code === 'string' ? ` (${code})` : ''}`;
  return new CrmError(null, { kind: 'retry', error: `${prefix}${why}` }, { cause: error });
}

/** Creates the client. */
export function createCrmHttp(config: CrmHttpConfig): CrmHttp {
  const sessions: CrmSessions =
    'sessions' in config ? config.sessions : fixedSession(config.baseUrl, config.headers);
  const maxBytes = answerCap(config.maxAnswerBytes ?? DEFAULT_MAX_CRM_ANSWER_BYTES, config.answers);

  /**
   * One try: admitted, paced and sent under `signal`; its answer awaited under `answer` (a create's answer,
   * whose id only it tells, is read to its end even when the attempt's time ran out meanwhile) and made a
   * value by `read` while its bytes are still held in serve's answer budget.
   */
  const once = async <T>(
    call: CrmCall,
    signal: AbortSignal,
    answer: AbortSignal,
    read: (status: number, text: string) => T,
  ): Promise<T> => {
    config.admit?.();
    await config.paceFor?.(call.path).wait(signal);
    if (signal.aborted) throw sendFailure(signal.reason, signal);
    const what = `${call.method} ${call.path.split('?')[0]}`;
    let session = await sessions.session(signal);
    for (let renewed = false; ; renewed = true) {
      const held: { release?: () => void } = {};
      try {
        const { response, text } = await exchange(call, session, what, answer, held);
        // A refused session is renewed once, by whoever saw it first, and the call replayed (salesforce-api.md §4);
        // fixed credentials cannot be renewed: their 401 is the CRM's answer.
        if (response.status === 401 && !renewed) {
          const fresh = await sessions.renew(session, signal);
          if (fresh !== session) {
            session = fresh;
            continue;
          }
        }
        if (response.status >= 200 && response.status < 300) return read(response.status, text);
        throw troubleOf(response, text);
      } finally {
        held.release?.();
      }
    }
  };

  const exchange = async (
    call: CrmCall,
    session: CrmSession,
    what: string,
    answer: AbortSignal,
    held: { release?: () => void },
  ): Promise<{ response: Response; text: string }> => {
    let response: Response | undefined;
    try {
      config.counter.call();
      response = await config.fetch(`${session.baseUrl.replace(/\/+$/, '')}${call.path}`, {
        method: call.method,
        headers: {
          ...session.headers,
          accept: 'application/json',
          'user-agent': 'hooksync-destinations',
          ...(call.json === undefined ? {} : { 'content-type': 'application/json' }),
          ...(call.text === undefined ? {} : { 'content-type': call.text.type }),
          ...call.headers,
        },
        ...(call.json === undefined ? {} : { body: JSON.stringify(call.json) }),
        ...(call.text === undefined ? {} : { body: call.text.body }),
        redirect: 'manual',
        signal: answer,
      });
      config.onHeaders?.(response.headers);
      // The answer's bytes are held in serve's answer budget from before its body is read until it is read.
      held.release = await reserveAnswer(
        config.answers,
        response.headers.get('content-length'),
        maxBytes,
        answer,
      );
      const bytes = await readCappedBody(response, {
        maxBytes,
        signal: answer,
        what: `${config.crm}'s answer to ${what}`,
      });
      return { response, text: new TextDecoder().decode(bytes) };
    } catch (error) {
      // An answer never read (the wait for the budget was cut short) must not hold its connection.
      response?.body?.cancel().catch(() => undefined);
      throw sendFailure(error, answer, config.nameCalls === true ? what : undefined);
    }
  };

  const troubleOf = (response: Response, text: string): CrmError => {
    const seconds = parseRetryAfterSeconds(response.headers.get('retry-after'), undefined, config.now());
    const trouble = config.classify({
      status: response.status,
      text,
      headers: response.headers,
      retryAfterMs: seconds === undefined ? undefined : Math.round(seconds * 1000),
    });
    if (trouble.kind === 'wait') config.counter.rateLimited(trouble.policy);
    return new CrmError(response.status, trouble);
  };

  const parseJson = (status: number, text: string): CrmAnswer => {
    try {
      return { status, body: text === '' ? null : (JSON.parse(text) as unknown) };
    } catch (error) {
      throw new CrmError(
        status,
        { kind: 'retry', error: `${config.crm} answered with no JSON` },
        { cause: error },
      );
    }
  };

  const call = <T>(
    request: CrmCall,
    signal: AbortSignal,
    answerSignal: AbortSignal | undefined,
    read: (status: number, text: string) => T,
  ) =>
    // The tries stop at the answer's signal: the attempt's is heeded before each send (`once`).
    withCrmRetries(policyFor(config.retry, request.method), answerSignal ?? signal, () =>
      once(request, signal, answerSignal ?? signal, read),
    );

  return {
    request: (method, path, body, signal, answerSignal) =>
      call({ method, path, json: body }, signal, answerSignal, parseJson),
    json: (schema, request, signal) =>
      call(request, signal, undefined, (status, text) =>
        checkAnswer(schema, parseJson(status, text), {
          crm: config.crm,
          call: `${request.method} ${request.path.split('?')[0]}`,
          maxItems: request.maxItems,
        }),
      ),
    text: (request, signal) => call(request, signal, undefined, (status, text) => ({ status, text })),
  };
}

/** Fixed credentials: every try goes to `baseUrl` with `headers`; nothing to renew. */
function fixedSession(baseUrl: string, headers: Readonly<Record<string, string>>): CrmSessions {
  const session: CrmSession = { baseUrl, headers };
  return { session: async () => session, renew: async (stale) => stale };
}
