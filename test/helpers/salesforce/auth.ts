/**
 * The token endpoint `POST /services/oauth2/token` (OAuth 2.0 client credentials and JWT bearer flows;
 * shared/docs/salesforce-api.md §4): a form body in, `{access_token, instance_url, id, token_type, issued_at,
 * signature, scope}` out, no refresh token and no expiry; OAuth error bodies `{error, error_description}`.
 * The JWT assertion's RS256 signature is verified with jose against the app's certificate key.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { type JWTVerifyGetKey, errors as joseErrors, jwtVerify, type KeyInput } from 'jose';
import type { Answer } from './rest.js';

/** The External Client App the org has. */
export interface AppConfig {
  clientId: string;
  clientSecret: string;
  /** Client credentials flow enabled with a run-as user (default true). */
  clientCredentials: boolean;
  /** The key of the certificate uploaded for JWT bearer; undefined: the flow is not set up. */
  jwtPublicKey: KeyInput | undefined;
  /** Usernames pre-authorized for JWT bearer. */
  jwtUsers: readonly string[];
  /** Audiences taken in an assertion. */
  audiences: readonly string[];
}

const JWT_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ORG_ID = '00DHs0000000001AAA';

function oauthError(status: number, error: string, description: string): Answer {
  return { status, body: { error, error_description: description } };
}

/** Issues and checks session tokens. */
export class Sessions {
  readonly #issued = new Map<string, number>();
  grants = 0;
  constructor(
    readonly app: AppConfig,
    readonly instanceUrl: () => string,
    readonly now: () => number,
    readonly ttlMs: number | undefined,
  ) {}

  /** Whether `token` is a live session. */
  valid(token: string): boolean {
    const at = this.#issued.get(token);
    return at !== undefined && (this.ttlMs === undefined || this.now() - at < this.ttlMs);
  }

  /** Ends every session, as a timeout or a revoked app does: the next call answers 401 INVALID_SESSION_ID. */
  expireAll(): void {
    this.#issued.clear();
  }

  #issue(userId: string): Answer {
    const token = `${ORG_ID}!AQ${randomBytes(24).toString('base64url')}`;
    const issuedAt = String(this.now());
    this.#issued.set(token, this.now());
    this.grants += 1;
    const id = `${this.instanceUrl()}/id/${ORG_ID}/${userId}`;
    return {
      status: 200,
      body: {
        access_token: token,
        signature: createHmac('sha256', this.app.clientSecret)
          .update(id + issuedAt)
          .digest('base64'),
        scope: 'api',
        instance_url: this.instanceUrl(),
        id,
        token_type: 'Bearer',
        issued_at: issuedAt,
      },
    };
  }

  /** Answers a token request (form-encoded body, or client id and secret in Basic auth). */
  async token(form: URLSearchParams, basic: string | undefined): Promise<Answer> {
    const grant = form.get('grant_type');
    if (grant === 'client_credentials') {
      let id = form.get('client_id');
      let secret = form.get('client_secret');
      if (basic !== undefined) {
        const [user, pass] = Buffer.from(basic, 'base64').toString('utf8').split(':');
        id = decodeURIComponent(user ?? '');
        secret = decodeURIComponent(pass ?? '');
      }
      if (id !== this.app.clientId || secret !== this.app.clientSecret)
        return oauthError(400, 'invalid_client', 'invalid client credentials');
      if (!this.app.clientCredentials)
        return oauthError(400, 'invalid_grant', 'no client credentials user enabled');
      return this.#issue('005Hs000000001AAA');
    }
    if (grant === JWT_GRANT) {
      const assertion = form.get('assertion');
      const key = this.app.jwtPublicKey;
      if (assertion === null || key === undefined)
        return oauthError(400, 'invalid_grant', 'invalid assertion');
      try {
        const getKey: JWTVerifyGetKey = async () => key;
        const { payload } = await jwtVerify(assertion, getKey, {
          algorithms: ['RS256'],
          currentDate: new Date(this.now()),
          requiredClaims: ['iss', 'sub', 'aud', 'exp'],
        });
        if (payload.iss !== this.app.clientId)
          return oauthError(400, 'invalid_client_id', 'client identifier invalid');
        const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
        if (!audiences.some((aud) => aud !== undefined && this.app.audiences.includes(aud)))
          return oauthError(400, 'invalid_grant', 'audience is invalid');
        if (!this.app.jwtUsers.includes(String(payload.sub)))
          return oauthError(400, 'invalid_grant', "user hasn't approved this consumer");
        return this.#issue('005Hs000000002AAA');
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired)
          return oauthError(400, 'invalid_grant', 'expired authorization code');
        return oauthError(400, 'invalid_grant', 'invalid assertion');
      }
    }
    return oauthError(400, 'unsupported_grant_type', 'grant type not supported');
  }
}
