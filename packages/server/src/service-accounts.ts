import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePrivateKey, parsePublicKeys } from '@cluster/apiserver';
import type { ServerOptions } from './flag-definitions.js';
import { writeAtomic } from './write-atomic.js';

/**
 * Issuer of the embedded default when no --service-account-issuer is given: the in-cluster
 * address of the API server in upstream's form, with the product name replaced (SPEC naming
 * convention).
 */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://cluster.default.svc.cluster.local';

/** The resolved service-account token configuration of a replica. */
export interface ServiceAccountConfig {
  signingKey: KeyObject;
  /** Verification keys: --service-account-key-file (or the TLS key) plus the signing key's public half. */
  verifyKeys: KeyObject[];
  /** The first issues tokens; all are accepted. */
  issuers: string[];
  /** --api-audiences, defaulting to the issuers. */
  apiAudiences: string[];
}

/** Flag checks that need no files (upstream's ServiceAccountAuthenticationOptions.Validate); messages, one per problem. */
export function validateServiceAccountFlags(o: ServerOptions): string[] {
  const errs: string[] = [];
  if (o.serviceAccountSigningKeyFile && o.serviceAccountIssuers.length === 0) {
    errs.push('--service-account-issuer is required when --service-account-signing-key-file is set');
  }
  if (o.serviceAccountKeyFiles.length > 0 && !o.serviceAccountSigningKeyFile && o.serviceAccountIssuers.length > 0) {
    errs.push('--service-account-signing-key-file is required when --service-account-key-file and --service-account-issuer are set');
  }
  const seen = new Set<string>();
  for (const issuer of o.serviceAccountIssuers) {
    if (issuer === '') errs.push('--service-account-issuer cannot be an empty string');
    else if (issuer.includes(':') && !URL.canParse(issuer)) errs.push(`--service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL`);
    if (seen.has(issuer)) errs.push(`--service-account-issuer ${JSON.stringify(issuer)} is already specified`);
    seen.add(issuer);
  }
  for (const aud of o.apiAudiences) if (aud === '') errs.push('--api-audiences cannot contain an empty string');
  return errs;
}

/**
 * The signing key pair of the embedded default: `<certDir>/sa.key` (PKCS#8, 0600) and `sa.pub`,
 * an ECDSA P-256 pair generated on first start and reused after, so tokens outlive restarts.
 */
async function ensureDefaultKey(certDir: string): Promise<KeyObject> {
  const keyPath = join(certDir, 'sa.key');
  try {
    return parsePrivateKey(await readFile(keyPath, 'utf8'), keyPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await mkdir(certDir, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await writeAtomic(join(certDir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }) as string, 0o644);
  await writeAtomic(keyPath, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 0o600);
  return privateKey;
}

async function readKeys(path: string): Promise<KeyObject[]> {
  return parsePublicKeys(await readFile(path, 'utf8'), path);
}

/**
 * Resolves the service-account flags: the signing key from --service-account-signing-key-file or
 * the generated default pair in `certDir`; verification keys from --service-account-key-file,
 * else --tls-private-key-file when it holds an RSA/ECDSA key (as upstream), plus the signing key's
 * own public half. Throws an Error with a one-line message for an unreadable or unusable key.
 */
export async function loadServiceAccountConfig(o: ServerOptions, certDir: string): Promise<ServiceAccountConfig> {
  const signingKey = o.serviceAccountSigningKeyFile
    ? parsePrivateKey(await readFile(o.serviceAccountSigningKeyFile, 'utf8'), o.serviceAccountSigningKeyFile)
    : await ensureDefaultKey(certDir);
  const verifyKeys: KeyObject[] = [];
  for (const file of o.serviceAccountKeyFiles) verifyKeys.push(...(await readKeys(file)));
  if (o.serviceAccountKeyFiles.length === 0 && o.tlsPrivateKeyFile) {
    try {
      verifyKeys.push(...(await readKeys(o.tlsPrivateKeyFile)));
    } catch {
      // Upstream only warns when the TLS key cannot verify tokens.
    }
  }
  verifyKeys.push(createPublicKey(signingKey));
  const issuers = o.serviceAccountIssuers.length > 0 ? [...o.serviceAccountIssuers] : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const apiAudiences = o.apiAudiences.length > 0 ? [...o.apiAudiences] : [...issuers];
  return { signingKey, verifyKeys, issuers, apiAudiences };
}
