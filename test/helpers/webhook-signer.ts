/**
 * Signs webhook deliveries as the interface specifies (Events part), with a key set served on a real
 * local socket. Every knob can be bent, so tests can build one-mutation forgeries.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey as JoseKey, type JWK, SignJWT } from 'jose';
import { computeBodyHash } from '../../src/contract/webhook-signature.js';

export interface SigningKey {
  kid: string;
  privateKey: JoseKey;
  publicJwk: JWK;
}

/** A fresh Ed25519 key. */
export async function createSigningKey(kid = `k-${randomUUID().slice(0, 8)}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'EdDSA' };
  return { kid, privateKey, publicJwk };
}

export interface SignOptions {
  key: SigningKey;
  /** Seconds since the epoch; default the test clock's now. */
  iat: number;
  exp?: number;
  jti?: string;
  jobId: string;
  bodyHash?: string;
  bodyHashAlg?: string;
  /** Claims to drop. */
  omit?: readonly string[];
  /** Header fields to override (alg, typ, kid). */
  header?: Record<string, unknown>;
}

/** The X-Webhook-Signature value for `body`. */
export async function signDelivery(body: string | Uint8Array, options: SignOptions): Promise<string> {
  const claims: Record<string, unknown> = {
    iat: options.iat,
    exp: options.exp ?? options.iat + 900,
    jti: options.jti ?? randomUUID(),
    job_id: options.jobId,
    body_hash: options.bodyHash ?? computeBodyHash(body),
    body_hash_alg: options.bodyHashAlg ?? 'sha-256',
  };
  for (const name of options.omit ?? []) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: options.key.kid, ...options.header } as {
      alg: string;
    })
    .sign(options.key.privateKey);
}

/** A key set on a real socket; `keys` and `down` can be changed while it runs. */
export interface JwksServer {
  url: string;
  keys: JWK[];
  /** When true, answers 503. */
  down: boolean;
  hits: number;
  close(): Promise<void>;
}

export async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  const state = { keys, down: false, hits: 0 };
  const server: Server = createServer((_req, res) => {
    state.hits++;
    if (state.down) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as JwksServer;
}
