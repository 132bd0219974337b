import { isIP } from 'node:net';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Extensions, Name, SubjectAlternativeName, id_ce_subjectAltName } from '@peculiar/asn1-x509';
import { decodePemBlocks } from './pem.js';

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** What a signer needs to know of a PKCS#10 request (whose signature was verified on create). */
export interface CertificateRequestDetails {
  commonName: string;
  organizations: string[];
  /** The subject Name as DER, copied into the certificate unchanged. */
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
 * Reads subject, public key and subject alternative names from a PEM PKCS#10 request. Pure.
 * @throws Error when the PEM or DER does not parse.
 */
export function certificateRequestDetails(pem: string | Uint8Array): CertificateRequestDetails {
  const text = typeof pem === 'string' ? pem : Buffer.from(pem).toString('latin1');
  const block = decodePemBlocks(text)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const csr = AsnConvert.parse(block.bytes, CertificationRequest);
  const info = csr.certificationRequestInfo;
  const details: CertificateRequestDetails = {
    commonName: '',
    organizations: [],
    subjectDer: new Uint8Array(AsnConvert.serialize(info.subject)),
    publicKeyDer: new Uint8Array(AsnConvert.serialize(info.subjectPKInfo)),
    dnsNames: [],
    ipAddresses: [],
    emailAddresses: [],
    uris: [],
  };
  for (const rdn of info.subject as Name) {
    for (const atv of rdn) {
      const value = atv.value.toString();
      if (atv.type === OID_CN) details.commonName ||= value;
      else if (atv.type === OID_O) details.organizations.push(value);
    }
  }
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
