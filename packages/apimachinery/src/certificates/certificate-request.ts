import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { Attributes, CertificationRequest, CertificationRequestInfo } from '@peculiar/asn1-csr';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  Attribute,
  AttributeTypeAndValue,
  AttributeValue,
  Extension,
  Extensions,
  GeneralName,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectPublicKeyInfo,
  id_ce_subjectAltName,
} from '@peculiar/asn1-x509';
import { encodeElement } from './der.js';
import { encodePem } from './pem.js';

/** Key kinds test CSRs can be made with (the accepted ones and some refused ones). */
export type TestKeyKind = 'rsa2048' | 'rsa1024' | 'p256' | 'p384' | 'p521' | 'ed25519';

export interface TestCsrOptions {
  key?: TestKeyKind;
  commonName?: string;
  organizations?: string[];
  /** Digest of the signature; sha1 makes a request upstream refuses. */
  hash?: 'sha1' | 'sha256' | 'sha384';
  /** Flips a bit of the signature so it no longer verifies. */
  corruptSignature?: boolean;
  /** Subject alternative names, requested through the extensionRequest attribute. */
  dnsNames?: string[];
  ipAddresses?: string[];
  emailAddresses?: string[];
  uris?: string[];
  /**
   * The ASN.1 universal tag each organization (and `commonNameTag` the common name) is encoded
   * with, its bytes the value's Latin-1 bytes unchecked (for requests that break the string
   * rules, e.g. a NumericString of letters); UTF8String when absent.
   */
  organizationTag?: number;
  commonNameTag?: number;
}

function sanAttributes(opts: TestCsrOptions): Attributes {
  const names: GeneralName[] = [
    ...(opts.dnsNames ?? []).map((dNSName) => new GeneralName({ dNSName })),
    // The library takes the text form of an address and encodes its bytes.
    ...(opts.ipAddresses ?? []).map((iPAddress) => new GeneralName({ iPAddress })),
    ...(opts.emailAddresses ?? []).map((rfc822Name) => new GeneralName({ rfc822Name })),
    ...(opts.uris ?? []).map((uniformResourceIdentifier) => new GeneralName({ uniformResourceIdentifier })),
  ];
  if (names.length === 0) return new Attributes();
  const san = new Extension({ extnID: id_ce_subjectAltName, critical: false, extnValue: new OctetString(AsnConvert.serialize(new SubjectAlternativeName(names))) });
  const extensions = AsnConvert.serialize(new Extensions([san]));
  return new Attributes([new Attribute({ type: '1.2.840.113549.1.9.14', values: [extensions] })]);
}


export interface TestCsr {
  /** The request as PEM text. */
  pem: string;
  /** The private key as PKCS#8 PEM. */
  keyPem: string;
  /** The request PEM as base64, the JSON form of spec.request. */
  request: string;
}

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const SIG_OIDS: Record<'rsa' | 'ec', Record<string, string>> = {
  rsa: { sha1: '1.2.840.113549.1.1.5', sha256: '1.2.840.113549.1.1.11', sha384: '1.2.840.113549.1.1.12' },
  ec: { sha1: '1.2.840.10045.4.1', sha256: '1.2.840.10045.4.3.2', sha384: '1.2.840.10045.4.3.3' },
};

function keyPair(kind: TestKeyKind): { publicKey: KeyObject; privateKey: KeyObject } {
  switch (kind) {
    case 'rsa2048':
      return generateKeyPairSync('rsa', { modulusLength: 2048 });
    case 'rsa1024':
      return generateKeyPairSync('rsa', { modulusLength: 1024 });
    case 'p256':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' });
    case 'p384':
      return generateKeyPairSync('ec', { namedCurve: 'P-384' });
    case 'p521':
      return generateKeyPairSync('ec', { namedCurve: 'P-521' });
    case 'ed25519':
      return generateKeyPairSync('ed25519');
  }
}

/**
 * A PKCS#10 request built from scratch with a fresh key (for tests): subject CN and O, no
 * attributes, self-signed with the chosen digest. Ed25519 requests are signed with Ed25519.
 */
export function makeTestCsr(opts: TestCsrOptions = {}): TestCsr {
  const kind = opts.key ?? 'p256';
  const { publicKey, privateKey } = keyPair(kind);
  const attributeValue = (value: string, tag: number | undefined) => {
    if (tag === undefined) return new AttributeValue({ utf8String: value });
    const der = encodeElement(tag, new Uint8Array(Buffer.from(value, 'latin1')));
    return new AttributeValue({ anyValue: der.buffer.slice(der.byteOffset, der.byteOffset + der.length) as ArrayBuffer });
  };
  const rdn = (type: string, value: string, tag?: number) => new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: attributeValue(value, tag) })]);
  const subject = new Name([
    ...(opts.organizations ?? []).map((o) => rdn(OID_O, o, opts.organizationTag)),
    rdn(OID_CN, opts.commonName ?? 'test', opts.commonNameTag),
  ]);
  const spki = AsnConvert.parse(publicKey.export({ format: 'der', type: 'spki' }), SubjectPublicKeyInfo);
  const info = new CertificationRequestInfo({ version: 0, subject, subjectPKInfo: spki, attributes: sanAttributes(opts) });
  const tbs = Buffer.from(AsnConvert.serialize(info));
  const hash = opts.hash ?? 'sha256';
  let signatureAlgorithm: AlgorithmIdentifier;
  let signature: Buffer;
  if (kind === 'ed25519') {
    signatureAlgorithm = new AlgorithmIdentifier({ algorithm: '1.3.101.112' });
    signature = sign(null, tbs, privateKey);
  } else {
    const family = kind.startsWith('rsa') ? 'rsa' : 'ec';
    const oid = SIG_OIDS[family][hash] ?? '';
    signatureAlgorithm = new AlgorithmIdentifier(family === 'rsa' ? { algorithm: oid, parameters: null } : { algorithm: oid });
    signature = sign(hash, tbs, privateKey);
  }
  if (opts.corruptSignature) signature[signature.length - 1] = (signature[signature.length - 1] ?? 0) ^ 1;
  const csr = new CertificationRequest({ certificationRequestInfo: info, signatureAlgorithm, signature: new Uint8Array(signature).buffer });
  const pem = encodePem('CERTIFICATE REQUEST', new Uint8Array(AsnConvert.serialize(csr)));
  return {
    pem,
    keyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    request: Buffer.from(pem).toString('base64'),
  };
}

/**
 * A PKCS#10 request with a fresh ECDSA P-256 key, as a client that joins the cluster makes one
 * (the credential plugin): subject CN and O, optional subject alternative names. The key never
 * leaves the caller. Tests use makeTestCsr for the refused variants.
 */
export function createCertificateRequest(opts: Pick<TestCsrOptions, 'commonName' | 'organizations' | 'dnsNames' | 'ipAddresses'>): TestCsr {
  return makeTestCsr({ ...opts, key: 'p256', hash: 'sha256' });
}
