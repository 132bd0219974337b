import type { CertificateRequestDetails } from './csr-details.js';

const sameSet = (a: readonly string[], b: readonly string[]) => new Set(a).size === new Set(b).size && b.every((u) => a.includes(u));

/**
 * The exact usages of a node-agent request: the three required, or (as upstream accepts for keys
 * that cannot encipher, ECDSA) the same without `key encipherment`.
 */
function usagesMatch(usages: readonly string[], required: readonly string[]): boolean {
  return sameSet(usages, required) || sameSet(usages, required.filter((u) => u !== 'key encipherment'));
}

const NODE_PREFIX = 'system:node:';

function organizationError(d: CertificateRequestDetails): string | undefined {
  return d.organizations.length !== 1 || d.organizations[0] !== 'system:nodes' ? 'subject organization is not system:nodes' : undefined;
}

/**
 * Why a request is not a node-agent client request (upstream's ValidateKubeletClientCSR), or
 * undefined when it is: organization exactly `system:nodes`, no subject alternative names, CN
 * `system:node:<name>`, usages exactly key encipherment, digital signature, client auth. Pure.
 */
export function nodeClientRequestError(d: CertificateRequestDetails, usages: readonly string[]): string | undefined {
  const org = organizationError(d);
  if (org) return org;
  if (d.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (d.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (d.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (d.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!d.commonName.startsWith(NODE_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!usagesMatch(usages, ['key encipherment', 'digital signature', 'client auth'])) return 'usages did not match [client auth digital signature key encipherment]';
  return undefined;
}

/**
 * Why a request is not a node-agent serving request (upstream's ValidateKubeletServingCSR), or
 * undefined when it is: organization exactly `system:nodes`, at least one DNS or IP name, no
 * email or URI names, usages exactly key encipherment, digital signature, server auth, CN
 * `system:node:<name>`. Pure.
 */
export function nodeServingRequestError(d: CertificateRequestDetails, usages: readonly string[]): string | undefined {
  const org = organizationError(d);
  if (org) return org;
  if (d.dnsNames.length === 0 && d.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (d.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (d.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!usagesMatch(usages, ['key encipherment', 'digital signature', 'server auth'])) return 'usages did not match [digital signature key encipherment server auth]';
  if (!d.commonName.startsWith(NODE_PREFIX)) return 'subject common name does not begin with system:node:';
  return undefined;
}
