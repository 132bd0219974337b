import { createServer, type Server } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { ensureCertificates } from '../../src/certs.js';

/** A signing key of the test issuer: `kid`, JOSE algorithm, private half, public JWK. */
export interface IssuerKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/** Generates a signing key (RSA or EC) with its public JWK. */
export async function newIssuerKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/**
 * An OpenID provider on loopback over HTTPS, with a CA of its own (in a temporary directory):
 * serves `<path>/.well-known/openid-configuration` and `<path>/keys` (the published set, which
 * tests replace to rotate keys), and signs ID tokens. Counts key-set fetches.
 */
export interface TestIssuer {
  /** The issuer URL (`https://127.0.0.1:<port>/<path>`), as `--oidc-issuer-url` and `iss`. */
  url: string;
  port: number;
  /** PEM of the CA that signed the issuer's serving certificate (`--oidc-ca-file`). */
  caPem: string;
  caFile: string;
  /** The keys in the published set; assign to rotate. */
  published: IssuerKey[];
  keyFetches: number;
  /** Signs an ID token for `aud` kube, `sub` alice, 5 minutes, overridable claim by claim. */
  sign(key: IssuerKey, claims?: JWTPayload, header?: { kid?: string | null }): Promise<string>;
  /** Stops listening (the issuer is down); start() listens again on the same port. */
  close(): Promise<void>;
  start(): Promise<void>;
  /** Stops and removes its files. */
  stop(): Promise<void>;
}

/** Starts an issuer; `port` 0 picks a free one. */
export async function startTestIssuer(opts: { port?: number; path?: string } = {}): Promise<TestIssuer> {
  const dir = await mkdtemp(join(tmpdir(), 'oidc-issuer-'));
  const certs = await ensureCertificates({ certDir: dir, hosts: ['127.0.0.1', 'localhost'] });
  const path = opts.path ?? '/idp';
  let server: Server | undefined;
  let port = opts.port ?? 0;
  const issuer: TestIssuer = {
    url: '',
    port,
    caPem: certs.caCertPem,
    caFile: join(dir, 'ca.crt'),
    published: [],
    keyFetches: 0,
    async sign(key, claims = {}, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      const h: { alg: string; kid?: string; typ: string } = { alg: key.alg, typ: 'JWT' };
      if (header.kid !== null) h.kid = header.kid ?? key.kid;
      const body: JWTPayload = { iss: issuer.url, aud: 'kube', sub: 'alice', iat: now, exp: now + 300, ...claims };
      return new SignJWT(body).setProtectedHeader(h).sign(key.privateKey);
    },
    async start() {
      const s = createServer({ cert: certs.servingCertPem, key: certs.servingKeyPem }, (req, res) => {
        const send = (code: number, body: unknown) => {
          res.writeHead(code, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (req.url === `${path}/.well-known/openid-configuration`) {
          send(200, {
            issuer: issuer.url,
            jwks_uri: `${issuer.url}/keys`,
            authorization_endpoint: `${issuer.url}/auth`,
            response_types_supported: ['id_token'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256', 'ES256'],
          });
        } else if (req.url === `${path}/keys`) {
          issuer.keyFetches++;
          send(200, { keys: issuer.published.map((k) => k.jwk) });
        } else {
          send(404, { error: 'not found' });
        }
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
      server = s;
      port = (s.address() as AddressInfo).port;
      issuer.port = port;
      issuer.url = `https://127.0.0.1:${port}${path}`;
    },
    async close() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async stop() {
      await issuer.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await issuer.start();
  return issuer;
}
