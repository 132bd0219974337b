import { TAG, concatBytes, decodeOid, encodeElement, encodeOid, readChildren, readElement } from './der.js';

/**
 * The one reader of X.509 subject names in this repository, used alike by CSR validation, the
 * CertificateSubjectRestriction admission plugin, the signer and client-certificate
 * authentication, so that no two of them can see different names in the same bytes. It keeps
 * Go's rules (crypto/x509 parseName and parseASN1String, pkix.Name.FillFromRDNSequence): every
 * string type is checked against its alphabet and a value that breaks it makes the whole name
 * invalid; nothing is ever shown as hex.
 */

/** One attribute of a name: its type OID and its decoded text. */
export interface NameAttribute {
  type: string;
  value: string;
}

/** The fields Go's pkix.Name reads from a name, plus every string attribute in order. */
export interface SubjectName {
  country: string[];
  organization: string[];
  organizationalUnit: string[];
  locality: string[];
  province: string[];
  streetAddress: string[];
  postalCode: string[];
  serialNumber: string;
  /** The last common name, as Go keeps it. */
  commonName: string;
  names: NameAttribute[];
}

/**
 * What to do with an attribute value whose type is not a string type: `reject` as crypto/x509 does
 * for certificates, `ignore` as encoding/asn1 does for certificate requests (the value is then
 * neither a field nor copied anywhere).
 */
export type OtherValueTypes = 'reject' | 'ignore';

const OID = {
  country: '2.5.4.6',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  commonName: '2.5.4.3',
  serialNumber: '2.5.4.5',
  locality: '2.5.4.7',
  province: '2.5.4.8',
  streetAddress: '2.5.4.9',
  postalCode: '2.5.4.17',
} as const;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const latin1 = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.length).toString('latin1');

/** Go's isPrintable; parsing allows `*` and `&` (common in the wild), encoding does not. */
function isPrintable(b: number, lenient: boolean): boolean {
  return (
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x30 && b <= 0x39) ||
    (b >= 0x27 && b <= 0x29) || // ' ( )
    (b >= 0x2b && b <= 0x2f) || // + , - . /
    b === 0x20 ||
    b === 0x3a ||
    b === 0x3d ||
    b === 0x3f ||
    (lenient && (b === 0x2a || b === 0x26))
  );
}

/**
 * The text of a string-typed attribute value under Go's rules, or undefined for a tag that is not
 * one of the string types Go reads. Pure.
 * @throws Error `invalid <Type>` when the bytes break the type's alphabet or encoding.
 */
export function parseAsn1String(tag: number, value: Uint8Array): string | undefined {
  switch (tag) {
    case TAG.T61_STRING:
      return latin1(value); // read as Latin-1, as Go and BoringSSL do
    case TAG.PRINTABLE_STRING:
      if (!value.every((b) => isPrintable(b, true))) throw new Error('invalid PrintableString');
      return latin1(value);
    case TAG.UTF8_STRING:
      try {
        return UTF8.decode(value);
      } catch {
        throw new Error('invalid UTF-8 string');
      }
    case TAG.BMP_STRING: {
      if (value.length % 2 !== 0) throw new Error('invalid BMPString');
      let end = value.length;
      if (end >= 2 && value[end - 1] === 0 && value[end - 2] === 0) end -= 2;
      for (let i = 0; i < end; i += 2) {
        const u = (value[i]! << 8) | value[i + 1]!;
        if (u === 0xfffe || u === 0xffff || (u >= 0xfdd0 && u <= 0xfdef) || (u >= 0xd800 && u <= 0xdfff)) throw new Error('invalid BMPString');
      }
      return Buffer.from(value.subarray(0, end)).swap16().toString('utf16le');
    }
    case TAG.IA5_STRING:
      if (!value.every((b) => b < 0x80)) throw new Error('invalid IA5String');
      return latin1(value);
    case TAG.NUMERIC_STRING:
      if (!value.every((b) => (b >= 0x30 && b <= 0x39) || b === 0x20)) throw new Error('invalid NumericString');
      return latin1(value);
    default:
      return undefined;
  }
}

const emptyName = (): SubjectName => ({
  country: [],
  organization: [],
  organizationalUnit: [],
  locality: [],
  province: [],
  streetAddress: [],
  postalCode: [],
  serialNumber: '',
  commonName: '',
  names: [],
});

/**
 * Parses a DER Name (RDNSequence). Pure.
 * @throws Error `x509: invalid RDNSequence...` (Go's words) when the DER is malformed or a string
 * value breaks its type's rules; also for a non-string value when `other` is `reject`.
 */
export function parseName(der: Uint8Array, other: OtherValueTypes = 'reject'): SubjectName {
  const fail = (why: string) => new Error(`x509: invalid RDNSequence${why}`);
  let seq;
  try {
    seq = readElement(der);
  } catch {
    throw fail('');
  }
  if (seq.tag !== TAG.SEQUENCE || seq.raw.length !== der.length) throw fail('');
  const name = emptyName();
  for (const set of children(seq.content, fail(''))) {
    if (set.tag !== TAG.SET) throw fail('');
    for (const atv of children(set.content, fail(': invalid attribute'))) {
      if (atv.tag !== TAG.SEQUENCE) throw fail(': invalid attribute');
      const parts = children(atv.content, fail(': invalid attribute'));
      const [typeEl, valueEl] = parts;
      if (!typeEl || typeEl.tag !== TAG.OID) throw fail(': invalid attribute type');
      let type: string;
      try {
        type = decodeOid(typeEl.content);
      } catch {
        throw fail(': invalid attribute type');
      }
      if (!valueEl || parts.length !== 2) throw fail(': invalid attribute value');
      let value: string | undefined;
      try {
        value = parseAsn1String(valueEl.tag, valueEl.content);
      } catch (e) {
        throw fail(`: invalid attribute value: ${(e as Error).message}`);
      }
      if (value === undefined) {
        if (other === 'reject') throw fail(`: invalid attribute value: unsupported string type: ${valueEl.tag}`);
        continue;
      }
      name.names.push({ type, value });
      fill(name, type, value);
    }
  }
  return name;
}

function children(content: Uint8Array, error: Error) {
  try {
    return readChildren(content);
  } catch {
    throw error;
  }
}

/** pkix.Name.FillFromRDNSequence for one attribute. */
function fill(name: SubjectName, type: string, value: string): void {
  switch (type) {
    case OID.country:
      return void name.country.push(value);
    case OID.organization:
      return void name.organization.push(value);
    case OID.organizationalUnit:
      return void name.organizationalUnit.push(value);
    case OID.locality:
      return void name.locality.push(value);
    case OID.province:
      return void name.province.push(value);
    case OID.streetAddress:
      return void name.streetAddress.push(value);
    case OID.postalCode:
      return void name.postalCode.push(value);
    case OID.commonName:
      name.commonName = value;
      return;
    case OID.serialNumber:
      name.serialNumber = value;
      return;
  }
}

/** A text value as Go marshals it: PrintableString when every byte allows, else UTF8String. */
function encodeString(value: string): Uint8Array {
  const bytes = Buffer.from(value, 'utf8');
  const printable = [...value].every((c) => c.length === 1 && isPrintable(c.charCodeAt(0), false));
  return encodeElement(printable ? TAG.PRINTABLE_STRING : TAG.UTF8_STRING, new Uint8Array(bytes));
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/**
 * The DER of a name rebuilt from its fields as Go's pkix.Name.ToRDNSequence does (C, ST, L,
 * street, postal code, O, OU, CN, serial number; each kind one RDN; other attributes dropped): what
 * a certificate signed from a request carries, so only what was read is ever issued. Pure.
 */
export function encodeSubjectName(name: SubjectName): Uint8Array {
  const rdns: Uint8Array[] = [];
  const add = (oid: string, values: readonly string[]) => {
    if (values.length === 0) return;
    const atvs = values.map((v) => encodeElement(TAG.SEQUENCE, concatBytes([encodeElement(TAG.OID, encodeOid(oid)), encodeString(v)])));
    rdns.push(encodeElement(TAG.SET, concatBytes(atvs.sort(compareBytes))));
  };
  add(OID.country, name.country);
  add(OID.province, name.province);
  add(OID.locality, name.locality);
  add(OID.streetAddress, name.streetAddress);
  add(OID.postalCode, name.postalCode);
  add(OID.organization, name.organization);
  add(OID.organizationalUnit, name.organizationalUnit);
  if (name.commonName) add(OID.commonName, [name.commonName]);
  if (name.serialNumber) add(OID.serialNumber, [name.serialNumber]);
  return encodeElement(TAG.SEQUENCE, concatBytes(rdns));
}

/**
 * The subject of a DER X.509 certificate, read with the rules above (crypto/x509's: any value of
 * a type that is not a string type is refused). Pure.
 * @throws Error when the certificate's structure or its subject is malformed.
 */
export function certificateSubject(der: Uint8Array): SubjectName {
  return parseName(certificateSubjectDer(der), 'reject');
}

/**
 * The subject Name of a DER X.509 certificate as its exact bytes (what a certificate it issues
 * names as issuer). Pure.
 * @throws Error when the certificate's structure is malformed.
 */
export function certificateSubjectDer(der: Uint8Array): Uint8Array {
  const cert = readElement(der);
  const tbs = readChildren(cert.content)[0];
  if (cert.tag !== TAG.SEQUENCE || !tbs || tbs.tag !== TAG.SEQUENCE) throw new Error('x509: malformed certificate');
  const fields = readChildren(tbs.content);
  // [0] version (optional), serial, signature algorithm, issuer, validity, subject
  const start = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[start + 4];
  if (!subject || subject.tag !== TAG.SEQUENCE) throw new Error('x509: malformed certificate');
  return subject.raw;
}
