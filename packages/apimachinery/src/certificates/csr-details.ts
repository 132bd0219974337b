import { isIP } from 'node:net';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Extensions, SubjectAlternativeName, id_ce_subjectAltName } from '@peculiar/asn1-x509';
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
  const csr = AsnConvert.parse(block.bytes, CertificationRequest);
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
        for (const name of AsnConvert.parse(der, SubjectAlternativeName)) {
          if (name.dNSName !== undefined) details.dnsNames.push(name.dNSName);
          else if (name.rfc822Name !== undefined) details.emailAddresses.push(name.rfc822Name);
          else if (name.uniformResourceIdentifier !== undefined) details.uris.push(name.uniformResourceIdentifier);
          else if (name.iPAddress !== undefined) details.ipAddresses.push(ipText(name.iPAddress));
        }
      }
    }
  }
  return details;
}

/** The text form of an iPAddress GeneralName (the library gives it as text or raw bytes). */
function ipText(value: unknown): string {
  if (typeof value === 'string' && isIP(value)) return value;
  const bytes = Buffer.from(value as ArrayBuffer);
  if (bytes.length === 4) return [...bytes].join('.');
  const groups: string[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}
