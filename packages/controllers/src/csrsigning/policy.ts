import { nodeClientRequestError, nodeServingRequestError, type CertificateRequestDetails } from '@cluster/apimachinery';

/**
 * What a built-in signer (SPEC 4.11) makes of a request: not one of its requests, a request that
 * breaks its rules (the error becomes a Failed condition), or one to sign with these usages.
 */
export type SignerVerdict =
  | { recognized: false }
  | { recognized: true; error: string }
  | { recognized: true; error?: undefined; honourSubjectAltNames: boolean };

/** Key usages of certificates/v1 as X.509 KeyUsage bits (0 = digitalSignature ... 8 = decipherOnly). */
export const KEY_USAGE_BITS: Readonly<Record<string, number>> = {
  signing: 0,
  'digital signature': 0,
  'content commitment': 1,
  'key encipherment': 2,
  'data encipherment': 3,
  'key agreement': 4,
  'cert sign': 5,
  'crl sign': 6,
  'encipher only': 7,
  'decipher only': 8,
};

/** Usages of certificates/v1 as ExtendedKeyUsage OIDs. */
export const EXT_KEY_USAGE_OIDS: Readonly<Record<string, string>> = {
  any: '2.5.29.37.0',
  'server auth': '1.3.6.1.5.5.7.3.1',
  'client auth': '1.3.6.1.5.5.7.3.2',
  'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4',
  's/mime': '1.3.6.1.5.5.7.3.4',
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9',
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

/**
 * Upstream's signer validation of the built-in signers under `apiDomain` (pure). Usage names are
 * those of certificates/v1 and were checked for being known when the request was created.
 */
export function signerVerdict(apiDomain: string, signerName: string, d: CertificateRequestDetails, usages: readonly string[]): SignerVerdict {
  const fail = (error: string): SignerVerdict => ({ recognized: true, error });
  switch (signerName) {
    case `${apiDomain}/api-server-client`: {
      for (const u of usages) {
        if (u !== 'digital signature' && u !== 'key encipherment' && u !== 'client auth') return fail(`invalid usage for client certificate: ${u}`);
      }
      if (!usages.includes('client auth')) return fail('missing required usage for client certificate: client auth');
      return { recognized: true, honourSubjectAltNames: true };
    }
    case `${apiDomain}/api-server-client-node-agent`: {
      const error = nodeClientRequestError(d, usages);
      return error ? fail(error) : { recognized: true, honourSubjectAltNames: false };
    }
    case `${apiDomain}/node-agent-serving`: {
      const error = nodeServingRequestError(d, usages);
      return error ? fail(error) : { recognized: true, honourSubjectAltNames: true };
    }
    case `${apiDomain}/legacy-unknown`:
      return { recognized: true, honourSubjectAltNames: true };
    default:
      return { recognized: false };
  }
}
