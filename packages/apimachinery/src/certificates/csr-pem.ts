import { X509Certificate, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnConvert } from '@peculiar/asn1-schema';
import { certificateRequestDetailsOfDer, requestSubject } from './csr-details.js';
import { decodePemBlocks } from './pem.js';

/** What the server learned from a request whose self-signature verified. */
export interface VerifiedCertificateRequest {
  /** `RSA` or `ECDSA`. */
  keyAlgorithm: 'RSA' | 'ECDSA';
  /** RSA modulus bits, or the ECDSA curve (`P-256`, `P-384`). */
  keySize: number | 'P-256' | 'P-384';
  /** Go's name of the signature algorithm, e.g. `SHA256-RSA`, `ECDSA-SHA384`. */
  signatureAlgorithm: string;
}

interface SignatureAlgorithm {
  name: string;
  key: 'rsa' | 'ec';
  /** Node digest name; absent for algorithms that are recognised but refused. */
  hash?: string;
}

/** PKCS#1 and ECDSA signature algorithms by OID (RFC 3279, RFC 4055, RFC 5758). */
const SIGNATURE_ALGORITHMS: Readonly<Record<string, SignatureAlgorithm>> = {
  '1.2.840.113549.1.1.5': { name: 'SHA1-RSA', key: 'rsa' },
  '1.2.840.113549.1.1.11': { name: 'SHA256-RSA', key: 'rsa', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { name: 'SHA384-RSA', key: 'rsa', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { name: 'SHA512-RSA', key: 'rsa', hash: 'sha512' },
  '1.2.840.10045.4.1': { name: 'ECDSA-SHA1', key: 'ec' },
  '1.2.840.10045.4.3.2': { name: 'ECDSA-SHA256', key: 'ec', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { name: 'ECDSA-SHA384', key: 'ec', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { name: 'ECDSA-SHA512', key: 'ec', hash: 'sha512' },
};

const CURVES: Readonly<Record<string, 'P-256' | 'P-384'>> = { prime256v1: 'P-256', secp384r1: 'P-384' };
const MIN_RSA_BITS = 2048;

/**
 * Parses `pem` as upstream's certificates.ParseCSR does (the first PEM block must be a
 * `CERTIFICATE REQUEST` holding one DER PKCS#10 request and nothing after it), checks that the key is
 * RSA of at least 2048 bits or ECDSA on P-256/P-384, that the subject keeps Go's string rules
 * (x509-name.ts), and verifies the request's self-signature.
 * Synchronous (node:crypto), so strategies can call it from validation. Pure.
 * @throws Error whose message says what is wrong, in upstream's words where upstream has them.
 */
export function verifyCertificateRequest(pem: Uint8Array | string): VerifiedCertificateRequest {
  const text = typeof pem === 'string' ? pem : Buffer.from(pem).toString('latin1');
  const block = decodePemBlocks(text)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const csr = parseRequest(block.bytes);
  const tbs = csr.certificationRequestInfoRaw;
  if (!tbs) throw new Error('x509: malformed certificate request');
  // Go refuses a request whose subject breaks the string rules (e.g. a NumericString of letters)
  // or whose subject alternative names are malformed (non-ASCII DNS names, odd IP lengths).
  requestSubject(new Uint8Array(tbs));
  certificateRequestDetailsOfDer(block.bytes);
  const key = publicKeyOf(csr);
  const alg = SIGNATURE_ALGORITHMS[csr.signatureAlgorithm.algorithm];
  if (!alg) throw new Error('x509: cannot verify signature: algorithm unimplemented');
  if (!alg.hash) throw new Error(`x509: cannot verify signature: insecure algorithm ${alg.name}`);
  const { keyAlgorithm, keySize } = checkKey(key);
  if ((alg.key === 'rsa') !== (keyAlgorithm === 'RSA')) {
    throw new Error(`x509: signature algorithm ${alg.name} does not match the ${keyAlgorithm} public key`);
  }
  let ok: boolean;
  try {
    ok = verify(alg.hash, Buffer.from(tbs), key, Buffer.from(csr.signature));
  } catch {
    ok = false;
  }
  if (!ok) throw new Error('x509: the request signature does not verify with its public key');
  return { keyAlgorithm, keySize, signatureAlgorithm: alg.name };
}

function parseRequest(der: Buffer): CertificationRequest {
  if (outerLength(der) !== der.length) throw new Error('x509: trailing data');
  try {
    return AsnConvert.parse(der, CertificationRequest);
  } catch {
    throw new Error('x509: malformed certificate request');
  }
}

/** Total length (header + content) of the DER element at the start of `der`; -1 when malformed. */
function outerLength(der: Uint8Array): number {
  if (der.length < 2 || der[0] !== 0x30) return -1;
  const first = der[1] ?? 0;
  if (first < 0x80) return 2 + first;
  const n = first & 0x7f;
  if (n === 0 || n > 4 || der.length < 2 + n) return -1;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + (der[2 + i] ?? 0);
  return 2 + n + len;
}

function publicKeyOf(csr: CertificationRequest): KeyObject {
  try {
    const spki = Buffer.from(AsnConvert.serialize(csr.certificationRequestInfo.subjectPKInfo));
    return createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch {
    throw new Error('x509: malformed public key');
  }
}

function checkKey(key: KeyObject): Pick<VerifiedCertificateRequest, 'keyAlgorithm' | 'keySize'> {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') {
    const bits = details.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) throw new Error(`RSA keys must have at least ${MIN_RSA_BITS} bits, found ${bits}`);
    return { keyAlgorithm: 'RSA', keySize: bits };
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = CURVES[details.namedCurve ?? ''];
    if (!curve) throw new Error(`ECDSA keys must use curve P-256 or P-384, found ${details.namedCurve ?? 'unknown'}`);
    return { keyAlgorithm: 'ECDSA', keySize: curve };
  }
  throw new Error(`unsupported public key type ${key.asymmetricKeyType ?? 'unknown'}: must be RSA or ECDSA`);
}

/**
 * Why `pem` is not acceptable as status.certificate, or undefined when it is (upstream's
 * validateCertificate): empty is fine; otherwise at least one PEM block, every block a
 * `CERTIFICATE` without headers that parses as X.509. Pure.
 */
export function certificatePemError(pem: Uint8Array | string): string | undefined {
  const text = typeof pem === 'string' ? pem : Buffer.from(pem).toString('latin1');
  if (text.length === 0) return undefined;
  const blocks = decodePemBlocks(text);
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${b.type}"`;
    if (Object.keys(b.headers).length > 0) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(b.bytes);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return undefined;
}
