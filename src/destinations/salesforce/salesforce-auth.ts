/**
 * Sessions for a server integration (shared/docs/salesforce-api.md §4): OAuth 2.0 client credentials, or the
 * JWT bearer flow with an RS256 assertion signed by jose, posted to the org's My Domain
 * `/services/oauth2/token`. Neither grant returns a refresh token or an expiry, so a session is kept until
 * Salesforce answers 401 INVALID_SESSION_ID, and then the grant is run again, once, by whoever saw it first.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { z } from 'zod';
import { readCappedBody } from '../../client/read-capped-body.js';
import { parseAnswer } from '../../contract/answer-shape.js';
import { CrmError } from '../../errors.js';
import type { CrmSession, CrmSessions } from '../crm/crm-http.js';

/** Bytes of a token answer read at most. */
export const TOKEN_ANSWER_MAX_BYTES = 64 * 1024;
/** Seconds a JWT assertion is valid for (Salesforce takes at most three minutes). */
export const ASSERTION_LIFETIME_SECONDS = 180;

/** The credentials of one destination, resolved from the environment or files at start. */
export type SalesforceCredentials =
  | { readonly grant: 'client_credentials'; readonly clientId: string; readonly clientSecret: string }
  | {
      readonly grant: 'jwt_bearer';
      readonly clientId: string;
      readonly username: string;
      /** PEM, PKCS#8 or PKCS#1. */
      readonly privateKey: string;
      /** The assertion's `aud`: https://login.salesforce.com, or https://test.salesforce.com for a sandbox. */
      readonly audience: string;
    };

/** Collaborators and settings of the sessions. */
export interface SalesforceAuthConfig {
  /** The org's My Domain URL (https unless loopback or allowed). */
  readonly loginUrl: string;
  readonly credentials: SalesforceCredentials;
  /** Where the credentials come from (`SF_CLIENT_ID and SF_CLIENT_SECRET`), for messages. */
  readonly source: string;
  readonly fetch: typeof globalThis.fetch;
  /** Clock in epoch ms (the assertion's `exp`). */
  readonly now: () => number;
  /**
   * The domain a granted `instance_url` must lie in (`salesforce.com`); default the login host's own
   * (its last two labels; the host itself when it is an address or a single label).
   */
  readonly instanceDomain?: string;
}

/** The domain of a host: its last two labels, or the host itself (an address, `localhost`). */
function domainOf(host: string): string {
  if (/^[\d.]+$/.test(host) || host.startsWith('[')) return host;
  return host.split('.').slice(-2).join('.');
}

/**
 * Why a granted `instance_url` may not receive the token, or undefined when it may (issue 43): https, or
 * plain http to the login URL's own host only (which passed the https rule when configured); no
 * credentials in it; its host in `instanceDomain`, else in the login host's domain.
 */
export function instanceUrlProblem(
  instanceUrl: string,
  config: Pick<SalesforceAuthConfig, 'loginUrl' | 'instanceDomain'>,
): string | undefined {
  let url: URL;
  try {
    url = new URL(instanceUrl);
  } catch {
    return 'that is not a URL';
  }
  const login = new URL(config.loginUrl);
  const shown = `"${url.protocol}//${url.host}"`;
  if (url.username !== '' || url.password !== '') return `${shown} with credentials in it`;
  const sameHttp = url.protocol === 'http:' && login.protocol === 'http:' && url.hostname === login.hostname;
  if (url.protocol !== 'https:' && !sameHttp) return `${shown} that is not https://`;
  const domain = (config.instanceDomain ?? domainOf(login.hostname)).toLowerCase();
  const host = url.hostname.toLowerCase();
  if (host !== domain && !host.endsWith(`.${domain}`)) return `${shown} outside ${domain}`;
  return undefined;
}

/**
 * Sessions of one destination, as the CRM HTTP core takes them: granted on first use; a new one in place of
 * a `stale` one Salesforce refused, concurrent callers sharing one grant.
 */
export interface SalesforceAuth extends CrmSessions {
  /** Grants made since start. */
  grants(): number;
}

const tokenAnswerSchema = z.looseObject({
  access_token: z.string().min(1),
  instance_url: z.url().refine((value) => /^https?:/.test(value), 'must be an http(s) URL'),
  token_type: z.string().optional(),
});
const oauthErrorSchema = z.looseObject({ error: z.string(), error_description: z.string().optional() });

/** Reads a PEM private key; throws TypeError without echoing it. */
export function readPrivateKey(pem: string): KeyObject {
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'rsa') throw new TypeError('not RSA');
    return key;
  } catch {
    throw new TypeError('is not a PEM RSA private key');
  }
}

/** The JWT bearer assertion: `iss` the client id, `sub` the user, `aud`, `exp` three minutes ahead. */
export async function signAssertion(
  credentials: Extract<SalesforceCredentials, { grant: 'jwt_bearer' }>,
  nowMs: number,
): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(credentials.clientId)
    .setSubject(credentials.username)
    .setAudience(credentials.audience)
    .setExpirationTime(Math.floor(nowMs / 1000) + ASSERTION_LIFETIME_SECONDS)
    .sign(readPrivateKey(credentials.privateKey));
}

/** Creates the sessions of one destination. */
export function createSalesforceAuth(config: SalesforceAuthConfig): SalesforceAuth {
  const tokenUrl = `${config.loginUrl.replace(/\/+$/, '')}/services/oauth2/token`;
  let current: Promise<CrmSession> | undefined;
  let granted = 0;

  const grant = async (signal: AbortSignal): Promise<CrmSession> => {
    const { credentials } = config;
    const form = new URLSearchParams(
      credentials.grant === 'client_credentials'
        ? {
            grant_type: 'client_credentials',
            client_id: credentials.clientId,
            client_secret: credentials.clientSecret,
          }
        : {
            grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
            assertion: await signAssertion(credentials, config.now()),
          },
    );
    let response: Response;
    try {
      response = await config.fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        redirect: 'manual',
        signal,
      });
    } catch {
      throw new CrmError(null, {
        kind: 'retry',
        error: signal.aborted ? 'token request timed out' : 'token request: network error',
      });
    }
    let text: string;
    try {
      text = new TextDecoder().decode(
        await readCappedBody(response, {
          maxBytes: TOKEN_ANSWER_MAX_BYTES,
          signal,
          what: 'the token answer',
        }),
      );
    } catch (error) {
      throw new CrmError(
        response.status,
        { kind: 'retry', error: (error as Error).message },
        { cause: error },
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (response.status === 200) {
      // The bounded shape check first, as for every answer from outside (contract/answer-shape.ts).
      const parsed = parseAnswer(tokenAnswerSchema, json);
      if (!parsed.ok) {
        throw new CrmError(200, {
          kind: 'retry',
          error: 'the token answer is not the shape Salesforce documents',
        });
      }
      // Every later call carries the token to this URL: held to the login URL's rules before it is used.
      const refused = instanceUrlProblem(parsed.data.instance_url, config);
      if (refused !== undefined) {
        throw new CrmError(200, {
          kind: 'pause',
          error: `Salesforce's token answer names an instance_url ${refused}; no token was sent to it. Check login_url (and instance_domain), then resume`,
        });
      }
      granted += 1;
      return {
        baseUrl: parsed.data.instance_url.replace(/\/+$/, ''),
        headers: { authorization: `Bearer ${parsed.data.access_token}` },
      };
    }
    const oauth = parseAnswer(oauthErrorSchema, json);
    if (response.status >= 500 || response.status === 408 || !oauth.ok) {
      throw new CrmError(response.status, {
        kind: 'retry',
        error: `token request: HTTP ${response.status}`,
      });
    }
    // Wrong credentials, a flow not enabled, a user not pre-authorized: no retry fixes them.
    const said = `${oauth.data.error}${oauth.data.error_description ? ` (${oauth.data.error_description})` : ''}`;
    throw new CrmError(response.status, {
      kind: 'pause',
      error: `Salesforce refused the ${credentials.grant} grant: ${said}; check ${config.source}, then resume`,
    });
  };

  const start = (signal: AbortSignal) => {
    const pending = grant(signal);
    current = pending;
    // A failed grant is not kept: the next call tries again.
    pending.catch(() => {
      if (current === pending) current = undefined;
    });
    return pending;
  };

  return {
    session: (signal) => current ?? start(signal),
    async renew(stale, signal) {
      const held = current === undefined ? undefined : await current.catch(() => undefined);
      if (held !== undefined && held !== stale) return held;
      return start(signal);
    },
    grants: () => granted,
  };
}
