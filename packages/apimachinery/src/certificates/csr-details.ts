import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Extensions, id_ce_subjectAltName } from '@peculiar/asn1-x509';
import { readChildren, readElement } from './der.js';
import { decodePemBlocks } from './pem.js';
import { encodeSubjectName, parseName, type SubjectName } from './x509-name.js';

const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** What a signer needs to know of a PKCS#10 request (whose signature was verified on create). */
export interface CertificateRequestDetails {
  /** The subject's (last) common name. */
  commonName: string;
  organizations: string[];
  /** The subject as read by the one name parser (x509-name.ts). */
  subject: SubjectName;
  /**
   * The subject rebuilt from `subject` as Go's signer does (never the requested bytes): what a
   * certificate issued for this request carries.
   */
  subjectDer: Uint8Array;
  /** The SubjectPublicKeyInfo as DER. */
  publicKeyDer: Uint8Array;
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** The subjectAltName extension as requested (DER of its value), if any. */
  subjectAltNameDer?: Uint8Array;
}

/**
 * The subject of a DER CertificationRequestInfo, read as Go's ParseCertificateRequest does
 * (encoding/asn1: string values checked against their types, values of other types ignored). Pure.
 * @throws Error when the structure or a string value is malformed.
 */
export function requestSubject(infoDer: Uint8Array): SubjectName {
  let subject;
  try {
    const info = readElement(infoDer);
    subject = readChildren(info.content)[1];
  } catch {
    throw new Error('x509: malformed certificate request');
  }
  if (!subject) throw new Error('x509: malformed certificate request');
  return parseName(subject.raw, 'ignore');
}

/**
 * Reads subject, public key and subject alternative names from a PEM PKCS#10 request. Pure.
 * @throws Error when the PEM or DER does not parse, or the subject breaks Go's string rules.
 */
export function certificateRequestDetails(pem: string | Uint8Array): CertificateRequestDetails {
  const text = typeof pem === 'string' ? pem : Buffer.from(pem).toString('latin1');
  const block = decodePemBlocks(text)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  return certificateRequestDetailsOfDer(block.bytes);
}

/** {@link certificateRequestDetails} of the DER request itself. Pure. @throws as it does. */
export function certificateRequestDetailsOfDer(der: Uint8Array): CertificateRequestDetails {
  let csr: CertificationRequest;
  try {
    csr = AsnConvert.parse(der, CertificationRequest);
  } catch {
    throw new Error('x509: malformed certificate request');
  }
  const info = csr.certificationRequestInfo;
  const infoRaw = csr.certificationRequestInfoRaw;
  if (!infoRaw) throw new Error('x509: malformed certificate request');
  const subject = requestSubject(new Uint8Array(infoRaw));
  const details: CertificateRequestDetails = {
    commonName: subject.commonName,
    organizations: [...subject.organization],
    subject,
    subjectDer: encodeSubjectName(subject),
    publicKeyDer: new Uint8Array(AsnConvert.serialize(info.subjectPKInfo)),
    dnsNames: [],
    ipAddresses: [],
    emailAddresses: [],
    uris: [],
  };
  for (const attr of info.attributes) {
    if (attr.type !== OID_EXTENSION_REQUEST) continue;
    for (const raw of attr.values) {
      const exts = AsnConvert.parse(raw, Extensions);
      for (const ext of exts) {
        if (ext.extnID !== id_ce_subjectAltName) continue;
        const der = new Uint8Array(ext.extnValue.buffer);
        details.subjectAltNameDer = der;
        readSubjectAltNames(der, details);
      }
    }
  }
  return details;
}

/** GeneralName tags (context-specific, implicit) that Go reads from subjectAltName. */
const SAN_EMAIL = 0x81;
const SAN_DNS = 0x82;
const SAN_URI = 0x86;
const SAN_IP = 0x87;

/**
 * The names of a subjectAltName extension value, read as Go's parseSANExtension: DNS, email and
 * URI names must be IA5 (ASCII), IP addresses 4 or 16 bytes; other name types are skipped.
 * Appends to `details`. @throws Error in Go's words for a malformed name.
 */
function readSubjectAltNames(der: Uint8Array, details: CertificateRequestDetails): void {
  let names;
  try {
    const seq = readElement(der);
    if (seq.tag !== 0x30 || seq.raw.length !== der.length) throw new Error();
    names = readChildren(seq.content);
  } catch {
    throw new Error('x509: invalid subject alternative names');
  }
  const ia5 = (v: Uint8Array, what: string) => {
    if (!v.every((b) => b < 0x80)) throw new Error(`x509: SAN ${what} is malformed`);
    return Buffer.from(v).toString('latin1');
  };
  for (const n of names) {
    switch (n.tag) {
      case SAN_EMAIL:
        details.emailAddresses.push(ia5(n.content, 'rfc822Name'));
        break;
      case SAN_DNS:
        details.dnsNames.push(ia5(n.content, 'dNSName'));
        break;
      case SAN_URI:
        details.uris.push(ia5(n.content, 'uniformResourceIdentifier'));
        break;
      case SAN_IP:
        details.ipAddresses.push(ipText(n.content));
        break;
    }
  }
}

/** The text form of an iPAddress GeneralName (4 or 16 bytes, as Go requires). */
function ipText(bytes: Uint8Array): string {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length !== 16) throw new Error(`x509: cannot parse IP address of length ${bytes.length}`);
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return compressIPv6(groups);
}

/** RFC 5952 text of eight hex groups: the longest run of two or more zero groups becomes `::`. */
function compressIPv6(groups: string[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}
