import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

/** JWS algorithms of service-account tokens, by key type (upstream's signer choice). */
export type ServiceAccountAlg = 'RS256' | 'ES256' | 'ES384' | 'ES512';

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * Every key in a PEM file, as public keys: PUBLIC KEY, RSA PUBLIC KEY, CERTIFICATE, and private
 * keys (PRIVATE KEY, RSA PRIVATE KEY, EC PRIVATE KEY), whose public half is taken, as upstream's
 * keyutil.ReadPublicKeys does. Other blocks (EC PARAMETERS) are skipped. Throws when a key block
 * does not parse, or when the file holds no key; only RSA and ECDSA keys are accepted.
 */
export function parsePublicKeys(pem: string, source = 'key file'): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const m of pem.matchAll(PEM_BLOCK)) {
    const [block, type] = [m[0], m[1]!];
    let key: KeyObject;
    if (type === 'CERTIFICATE') key = new X509Certificate(block).publicKey;
    else if (type.endsWith('PUBLIC KEY')) key = createPublicKey(block);
    else if (type.endsWith('PRIVATE KEY')) key = createPublicKey(createPrivateKey(block));
    else continue;
    algorithmOf(key, source);
    keys.push(key);
  }
  if (keys.length === 0) throw new Error(`${source}: no RSA or ECDSA key found in PEM data`);
  return keys;
}

/** The one private key of a signing key file (--service-account-signing-key-file). Throws when absent. */
export function parsePrivateKey(pem: string, source = 'signing key file'): KeyObject {
  for (const m of pem.matchAll(PEM_BLOCK)) {
    if (m[1]!.endsWith('PRIVATE KEY')) {
      const key = createPrivateKey(m[0]);
      algorithmOf(key, source);
      return key;
    }
  }
  throw new Error(`${source}: no private key found in PEM data`);
}

/** RS256 for RSA, ES256/ES384/ES512 for ECDSA P-256/P-384/P-521; throws for other keys. */
export function algorithmOf(key: KeyObject, source = 'key'): ServiceAccountAlg {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error(`${source}: unsupported ECDSA curve ${curve ?? 'unknown'}`);
  }
  throw new Error(`${source}: unsupported key type ${key.asymmetricKeyType ?? 'unknown'} (RSA or ECDSA only)`);
}

/**
 * The `kid` header of tokens signed by a key, as upstream computes it: base64url (unpadded) of
 * the SHA-256 of the public key's DER SubjectPublicKeyInfo. Accepts a private or public key.
 */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const der = pub.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}
