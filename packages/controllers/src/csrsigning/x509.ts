import { createHash, createPrivateKey, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  KeyIdentifier,
  KeyUsage,
  Name,
  SubjectPublicKeyInfo,
  TBSCertificate,

  Validity,
  Version,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
} from '@peculiar/asn1-x509';
import { certificateSubjectDer, encodePem, type CertificateRequestDetails } from '@cluster/apimachinery';
import { EXT_KEY_USAGE_OIDS, KEY_USAGE_BITS } from './policy.js';

/** A signing CA: its certificate and private key (RSA or ECDSA), as loaded from PEM. */
export interface SigningAuthority {
  certificate: X509Certificate;
  key: KeyObject;
  /** The CA's subject, copied as the issuer of what it signs. */
  subjectDer: Uint8Array;
  /** The CA's subject key identifier (or the SHA-1 of its public key), for authorityKeyIdentifier. */
  keyId: Uint8Array;
  notAfter: Date;
}

export function loadSigningAuthority(certPem: string, keyPem: string): SigningAuthority {
  const certificate = new X509Certificate(certPem);
  const key = createPrivateKey(keyPem);
  if (!certificate.checkPrivateKey(key)) throw new Error('the signing key does not match the signing certificate');
  const parsed = AsnConvert.parse(certificate.raw, Certificate);
  const tbs = parsed.tbsCertificate;
  const ski = tbs.extensions?.find((e) => e.extnID === id_ce_subjectKeyIdentifier);
  const keyId = ski
    ? new Uint8Array(AsnConvert.parse(ski.extnValue.buffer, KeyIdentifier).buffer)
    : new Uint8Array(createHash('sha1').update(new Uint8Array(tbs.subjectPublicKeyInfo.subjectPublicKey)).digest());
  // The CA's subject bytes as they are, so the issuer of what it signs matches them exactly.
  return { certificate, key, subjectDer: new Uint8Array(certificateSubjectDer(new Uint8Array(certificate.raw))), keyId, notAfter: new Date(certificate.validTo) };
}

/** Signature algorithm of a CA key: SHA-256 with RSA, or ECDSA with the curve's matching hash. */
function signatureAlgorithm(key: KeyObject): { id: AlgorithmIdentifier; hash: string } {
  if (key.asymmetricKeyType === 'rsa') return { id: new AlgorithmIdentifier({ algorithm: '1.2.840.113549.1.1.11', parameters: null }), hash: 'sha256' };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'secp384r1') return { id: new AlgorithmIdentifier({ algorithm: '1.2.840.10045.4.3.3' }), hash: 'sha384' };
    if (curve === 'secp521r1') return { id: new AlgorithmIdentifier({ algorithm: '1.2.840.10045.4.3.4' }), hash: 'sha512' };
    return { id: new AlgorithmIdentifier({ algorithm: '1.2.840.10045.4.3.2' }), hash: 'sha256' };
  }
  throw new Error(`unsupported signing key type ${key.asymmetricKeyType ?? 'unknown'}`);
}

export interface IssueRequest {
  request: CertificateRequestDetails;
  usages: readonly string[];
  honourSubjectAltNames: boolean;
  notBefore: Date;
  notAfter: Date;
}

const ext = (extnID: string, critical: boolean, value: unknown) =>
  new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });

/**
 * Issues an X.509 v3 certificate for a request (what upstream's CA signer does): the request's
 * subject and public key, a random 128-bit serial, key usage (critical) and extended key usage
 * from `usages`, basic constraints (critical) that never set the CA bit, the authority key
 * identifier, and the requested subjectAltName only when the signer honours it. Every other
 * requested extension is dropped. Written on the ASN.1 schema library because no maintained
 * JavaScript X.509 library signs with both RSA and ECDSA keys synchronously.
 */
export function issueCertificate(ca: SigningAuthority, req: IssueRequest): string {
  const { id, hash } = signatureAlgorithm(ca.key);
  const extensions: Extension[] = [];
  let bits = 0;
  for (const u of req.usages) {
    const bit = KEY_USAGE_BITS[u];
    if (bit !== undefined) bits |= 1 << bit;
  }
  if (bits !== 0) extensions.push(ext(id_ce_keyUsage, true, new KeyUsage(bits)));
  const ekus = [...new Set(req.usages.map((u) => EXT_KEY_USAGE_OIDS[u]).filter((o): o is string => o !== undefined))];
  if (ekus.length > 0) extensions.push(ext(id_ce_extKeyUsage, false, new ExtendedKeyUsage(ekus)));
  extensions.push(ext(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })));
  extensions.push(ext(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(ca.keyId) })));
  if (req.honourSubjectAltNames && req.request.subjectAltNameDer) {
    extensions.push(new Extension({ extnID: id_ce_subjectAltName, critical: false, extnValue: new OctetString(req.request.subjectAltNameDer) }));
  }
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f; // positive, as DER INTEGER
  if (serial[0] === 0) serial[0] = 1; // and minimally encoded
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: serial.buffer.slice(serial.byteOffset, serial.byteOffset + serial.length),
    signature: id,
    issuer: AsnConvert.parse(ca.subjectDer, Name),
    validity: new Validity({ notBefore: req.notBefore, notAfter: req.notAfter }),
    subject: AsnConvert.parse(req.request.subjectDer, Name),
    subjectPublicKeyInfo: AsnConvert.parse(req.request.publicKeyDer, SubjectPublicKeyInfo),
    extensions: new Extensions(extensions),
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const signature = sign(hash, tbsDer, ca.key);
  const cert = new Certificate({ tbsCertificate: tbs, signatureAlgorithm: id, signatureValue: new Uint8Array(signature).buffer });
  return encodePem('CERTIFICATE', new Uint8Array(AsnConvert.serialize(cert)));
}

