import { makeTestCsr } from './certificate-request.js';
import { certificateRequestDetails } from './csr-details.js';
import { verifyCertificateRequest } from './csr-pem.js';
import { TAG, encodeElement } from './der.js';
import { encodeSubjectName, parseAsn1String, parseName } from './x509-name.js';

const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));
const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

describe('parseAsn1String keeps Go\'s alphabets', () => {
  test.each<[string, number, Uint8Array, string]>([
    ['NumericString of digits and spaces', TAG.NUMERIC_STRING, bytes('12 34'), '12 34'],
    ['PrintableString', TAG.PRINTABLE_STRING, bytes("Ab0 '()+,-./:=?"), "Ab0 '()+,-./:=?"],
    ['PrintableString with * and & (accepted on parse, as Go)', TAG.PRINTABLE_STRING, bytes('*.a&b'), '*.a&b'],
    ['UTF8String', TAG.UTF8_STRING, new Uint8Array(Buffer.from('héllo ✓')), 'héllo ✓'],
    ['UTF8String keeps a leading BOM', TAG.UTF8_STRING, hex('efbbbf61'), '\ufeffa'],
    ['IA5String', TAG.IA5_STRING, bytes('a@b.c'), 'a@b.c'],
    ['T61String as Latin-1', TAG.T61_STRING, hex('e9'), 'é'],
    ['BMPString', TAG.BMP_STRING, hex('00610062'), 'ab'],
    ['BMPString with a terminator', TAG.BMP_STRING, hex('006100000'.padEnd(8, '0')), 'a'],
  ])('%s', (_n, tag, value, want) => {
    expect(parseAsn1String(tag, value)).toBe(want);
  });

  test.each<[string, number, Uint8Array, string]>([
    ['NumericString of letters (the system:masters smuggle)', TAG.NUMERIC_STRING, bytes('system:masters'), 'invalid NumericString'],
    ['NumericString with a dash', TAG.NUMERIC_STRING, bytes('12-3'), 'invalid NumericString'],
    ['PrintableString with @', TAG.PRINTABLE_STRING, bytes('a@b'), 'invalid PrintableString'],
    ['PrintableString with a high byte', TAG.PRINTABLE_STRING, hex('61e9'), 'invalid PrintableString'],
    ['UTF8String that is not UTF-8', TAG.UTF8_STRING, hex('61ff'), 'invalid UTF-8 string'],
    ['UTF8String with an encoded surrogate', TAG.UTF8_STRING, hex('eda080'), 'invalid UTF-8 string'],
    ['IA5String with a high byte', TAG.IA5_STRING, hex('61c3a9'), 'invalid IA5String'],
    ['BMPString of odd length', TAG.BMP_STRING, hex('006100'), 'invalid BMPString'],
    ['BMPString with a surrogate', TAG.BMP_STRING, hex('d800'), 'invalid BMPString'],
    ['BMPString with a noncharacter', TAG.BMP_STRING, hex('fffe'), 'invalid BMPString'],
  ])('refuses %s', (_n, tag, value, msg) => {
    expect(() => parseAsn1String(tag, value)).toThrow(msg);
  });

  test('other tags are not strings', () => {
    expect(parseAsn1String(TAG.UNIVERSAL_STRING, hex('00000061'))).toBeUndefined();
    expect(parseAsn1String(TAG.INTEGER, hex('01'))).toBeUndefined();
  });
});

describe('parseName / encodeSubjectName', () => {
  const empty = () => ({ country: [], organization: [], organizationalUnit: [], locality: [], province: [], streetAddress: [], postalCode: [], serialNumber: '', commonName: '', names: [] });

  test('round trip in Go\'s order, several O in one RDN sorted as a DER SET OF', () => {
    const der = encodeSubjectName({ ...empty(), organization: ['b', 'a*'], commonName: 'alice', country: ['DE'] });
    const n = parseName(der);
    expect(n).toMatchObject({ country: ['DE'], organization: ['b', 'a*'], commonName: 'alice' });
    expect(n.names.map((a) => a.type)).toEqual(['2.5.4.6', '2.5.4.10', '2.5.4.10', '2.5.4.3']);
    // 'a*' is not printable for encoding: UTF8String, like Go's marshaller
    expect(Buffer.from(der).toString('hex')).toContain('0c02612a');
  });

  test('the last common name wins, as pkix.Name keeps it', () => {
    const two = (cn: string) => encodeElement(TAG.SET, encodeElement(TAG.SEQUENCE, new Uint8Array([...hex('0603550403'), ...encodeElement(TAG.UTF8_STRING, bytes(cn))])));
    expect(parseName(encodeElement(TAG.SEQUENCE, new Uint8Array([...two('first'), ...two('last')]))).commonName).toBe('last');
  });

  test('a name with a bad value, trailing bytes or garbage is refused', () => {
    const good = encodeSubjectName({ ...empty(), commonName: 'x' });
    expect(() => parseName(new Uint8Array([...good, 0]))).toThrow('x509: invalid RDNSequence');
    expect(() => parseName(hex('3003310130'))).toThrow('x509: invalid RDNSequence');
    expect(() => parseName(hex('0500'))).toThrow('x509: invalid RDNSequence');
    const numeric = encodeElement(TAG.SEQUENCE, encodeElement(TAG.SET, encodeElement(TAG.SEQUENCE, new Uint8Array([...hex('0603550403'), ...encodeElement(TAG.NUMERIC_STRING, bytes('root'))]))));
    expect(() => parseName(numeric)).toThrow('x509: invalid RDNSequence: invalid attribute value: invalid NumericString');
    const universal = encodeElement(TAG.SEQUENCE, encodeElement(TAG.SET, encodeElement(TAG.SEQUENCE, new Uint8Array([...hex('060355040a'), ...encodeElement(TAG.UNIVERSAL_STRING, hex('00000061'))]))));
    expect(() => parseName(universal, 'reject')).toThrow('unsupported string type');
    expect(parseName(universal, 'ignore').organization).toEqual([]);
  });
});

describe('certificate requests through the one parser', () => {
  test('O=system:masters as a NumericString is refused at verification and by the details reader', () => {
    const { pem } = makeTestCsr({ commonName: 'mallory', organizations: ['system:masters'], organizationTag: TAG.NUMERIC_STRING });
    expect(() => verifyCertificateRequest(pem)).toThrow('invalid NumericString');
    expect(() => certificateRequestDetails(pem)).toThrow('invalid NumericString');
  });

  test.each([TAG.PRINTABLE_STRING, TAG.IA5_STRING, TAG.T61_STRING])('O=system:masters as tag %i is read as text (and is then caught by admission)', (tag) => {
    const { pem } = makeTestCsr({ organizations: ['system:masters'], organizationTag: tag });
    expect(() => verifyCertificateRequest(pem)).not.toThrow();
    expect(certificateRequestDetails(pem).organizations).toEqual(['system:masters']);
  });

  test('a NumericString of digits is a valid organization; the issued subject is re-encoded', () => {
    const { pem } = makeTestCsr({ commonName: 'n', organizations: ['12 34'], organizationTag: TAG.NUMERIC_STRING });
    verifyCertificateRequest(pem);
    const d = certificateRequestDetails(pem);
    expect(d.organizations).toEqual(['12 34']);
    expect(parseName(d.subjectDer)).toMatchObject({ organization: ['12 34'], commonName: 'n' });
    expect(Buffer.from(d.subjectDer).toString('hex')).not.toContain('1205'); // no NumericString issued
  });

  test('a UniversalString organization is ignored by the request reader (encoding/asn1) and never issued', () => {
    const { pem } = makeTestCsr({ commonName: 'n', organizations: ['\0\0\0a'], organizationTag: TAG.UNIVERSAL_STRING });
    const d = certificateRequestDetails(pem);
    expect(d.organizations).toEqual([]);
    expect(parseName(d.subjectDer).names).toEqual([{ type: '2.5.4.3', value: 'n' }]);
  });

  test.each<[string, Parameters<typeof makeTestCsr>[0], string]>([
    ['a non-ASCII DNS name', { dnsNames: ['b\u00fccher.example'] }, 'x509: SAN dNSName is malformed'],
    ['a non-ASCII email address', { emailAddresses: ['\u00e9@example.com'] }, 'x509: SAN rfc822Name is malformed'],
    ['a non-ASCII URI', { uris: ['spiffe://\u00e9/x'] }, 'x509: SAN uniformResourceIdentifier is malformed'],
  ])('subject alternative names keep Go\'s rules: %s is refused', (_n, opts, msg) => {
    const { pem } = makeTestCsr(opts);
    expect(() => verifyCertificateRequest(pem)).toThrow(msg);
  });

  test('IP addresses read as Go prints them', () => {
    const d = certificateRequestDetails(makeTestCsr({ ipAddresses: ['10.0.0.1', '2001:db8::1', '::1', '2001:db8:0:1:0:0:0:1'] }).pem);
    expect(d.ipAddresses).toEqual(['10.0.0.1', '2001:db8::1', '::1', '2001:db8:0:1::1']);
  });
});
