/**
 * The stand-in's token endpoint and sessions: client credentials, JWT bearer with an RS256 assertion verified
 * against the app's key, OAuth error bodies, and 401 INVALID_SESSION_ID once a session ends.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { api, fakeClock, grant, login, standInsClosedAfterEach } from './http.js';

const start = standInsClosedAfterEach();

describe('client credentials', () => {
  it('grants a token with instance_url and no refresh token or expiry', async () => {
    const sf = await start();
    const answer = await grant(sf, {
      grant_type: 'client_credentials',
      client_id: sf.clientId,
      client_secret: sf.clientSecret,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', instance_url: sf.url, scope: 'api' });
    expect(answer.body.id).toMatch(/\/id\/00D\w+\/005\w+$/);
    expect(answer.body).not.toHaveProperty('refresh_token');
    expect(answer.body).not.toHaveProperty('expires_in');
    expect((await api(sf, answer.body.access_token, 'GET', 'limits')).status).toBe(200);
  });

  it('refuses a wrong secret, a flow not enabled and an unknown grant with OAuth error bodies', async () => {
    const sf = await start();
    const wrong = await grant(sf, {
      grant_type: 'client_credentials',
      client_id: sf.clientId,
      client_secret: 'nope',
    });
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: 'invalid_client', error_description: 'invalid client credentials' },
    });
    const off = await start({ clientCredentials: false });
    const disabled = await grant(off, {
      grant_type: 'client_credentials',
      client_id: off.clientId,
      client_secret: off.clientSecret,
    });
    expect(disabled.body).toEqual({
      error: 'invalid_grant',
      error_description: 'no client credentials user enabled',
    });
    const password = await grant(sf, { grant_type: 'refresh_token', refresh_token: 'x' });
    expect(password.body.error).toBe('unsupported_grant_type');
  });

  it('takes the client id and secret in Basic auth too', async () => {
    const sf = await start();
    const response = await fetch(`${sf.url}/services/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${sf.clientId}:${sf.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(200);
  });
});

describe('sessions', () => {
  it('answers 401 INVALID_SESSION_ID without a token, with a wrong one, and after the session ends; a new grant works', async () => {
    const sf = await start();
    const token = await login(sf);
    for (const bad of [null, 'forged']) {
      const answer = await api(sf, bad, 'GET', 'limits');
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual([
        { message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' },
      ]);
      expect(answer.headers.get('sforce-limit-info')).toBeNull();
    }
    sf.expireSessions();
    expect((await api(sf, token, 'GET', 'limits')).status).toBe(401);
    expect((await api(sf, await login(sf), 'GET', 'limits')).status).toBe(200);
    expect(sf.grants()).toBe(2);
  });

  it('ends a session after sessionTtlMs of its clock', async () => {
    const clock = fakeClock();
    const sf = await start({ now: clock.now, sessionTtlMs: 7_200_000 });
    const token = await login(sf);
    clock.advance(7_199_999);
    expect((await api(sf, token, 'GET', 'limits')).status).toBe(200);
    clock.advance(1);
    expect((await api(sf, token, 'GET', 'limits')).status).toBe(401);
  });
});

describe('JWT bearer', () => {
  const JWT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

  it('grants a token for an RS256 assertion signed with the app certificate key, and refuses every one-claim mutation', async () => {
    const clock = fakeClock();
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const other = await generateKeyPair('RS256');
    const sf = await start({
      now: clock.now,
      jwtPublicKey: publicKey,
      jwtUsers: ['integration@acme.example'],
    });
    const iat = Math.floor(clock.now() / 1000);
    const sign = (
      claims: Record<string, unknown>,
      key: Parameters<SignJWT['sign']>[0] = privateKey,
      alg = 'RS256',
    ) =>
      new SignJWT({
        iss: sf.clientId,
        sub: 'integration@acme.example',
        aud: 'https://login.salesforce.com',
        exp: iat + 180,
        ...claims,
      })
        .setProtectedHeader({ alg })
        .sign(key);
    const ok = await grant(sf, { grant_type: JWT, assertion: await sign({}) });
    expect(ok.status).toBe(200);
    expect(ok.body.instance_url).toBe(sf.url);
    const mine = await grant(sf, { grant_type: JWT, assertion: await sign({ aud: sf.url }) });
    expect(mine.status).toBe(200);
    const cases: Array<[string, Promise<string>, string]> = [
      ['other key', sign({}, other.privateKey), 'invalid assertion'],
      ['issuer', sign({ iss: 'someone-else' }), 'client identifier invalid'],
      ['subject', sign({ sub: 'ceo@acme.example' }), "user hasn't approved this consumer"],
      ['audience', sign({ aud: 'https://evil.example' }), 'audience is invalid'],
      ['expired', sign({ exp: iat - 1 }), 'expired authorization code'],
    ];
    for (const [name, assertion, description] of cases) {
      const answer = await grant(sf, { grant_type: JWT, assertion: await assertion });
      expect({ name, status: answer.status, description: answer.body.error_description }).toEqual({
        name,
        status: 400,
        description,
      });
    }
    const hs = await grant(sf, {
      grant_type: JWT,
      assertion: await sign({}, new TextEncoder().encode('x'.repeat(32)), 'HS256'),
    });
    expect(hs.body.error).toBe('invalid_grant');
  });
});
