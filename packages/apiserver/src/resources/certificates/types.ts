export type { CertificateSigningRequest, CsrCondition, CsrSpec } from '@cluster/apimachinery';

/** The certificates API group under `apiDomain`. */
export function certificatesGroup(apiDomain: string): string {
  return `certificates.${apiDomain}`;
}

/** The signer v1 refuses on create (requests made before signer names existed). */
export function legacyUnknownSigner(apiDomain: string): string {
  return `${apiDomain}/legacy-unknown`;
}

/** Condition types that, once present, stay as they are. */
export const FINAL_CONDITION_TYPES = ['Approved', 'Denied', 'Failed'] as const;

/** Key usages a request may ask for (upstream's KeyUsage constants), sorted. */
export const KNOWN_USAGES: readonly string[] = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];
