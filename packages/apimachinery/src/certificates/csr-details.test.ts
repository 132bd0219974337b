import { certificateRequestDetails } from './csr-details.js';
import { makeTestCsr } from './certificate-request.js';

describe('certificateRequestDetails', () => {
  test('subject and every kind of subject alternative name', () => {
    const { pem } = makeTestCsr({
      commonName: 'system:node:n1',
      organizations: ['system:nodes', 'extra'],
      dnsNames: ['n1.example.com'],
      ipAddresses: ['10.0.0.1', '2001:db8::1'],
      emailAddresses: ['a@example.com'],
      uris: ['spiffe://x/y'],
    });
    const d = certificateRequestDetails(pem);
    expect(d.commonName).toBe('system:node:n1');
    expect(d.organizations).toEqual(['system:nodes', 'extra']);
    expect(d.dnsNames).toEqual(['n1.example.com']);
    expect(d.ipAddresses[0]).toBe('10.0.0.1');
    expect(d.ipAddresses).toHaveLength(2);
    expect(d.emailAddresses).toEqual(['a@example.com']);
    expect(d.uris).toEqual(['spiffe://x/y']);
    expect(d.subjectAltNameDer).toBeDefined();
  });

  test('no SANs, and a PEM that is not a request', () => {
    const d = certificateRequestDetails(makeTestCsr({ commonName: 'alice' }).pem);
    expect(d).toMatchObject({ commonName: 'alice', organizations: [], dnsNames: [], ipAddresses: [], emailAddresses: [], uris: [] });
    expect(d.subjectAltNameDer).toBeUndefined();
    expect(() => certificateRequestDetails('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).toThrow('CERTIFICATE REQUEST');
  });
});
