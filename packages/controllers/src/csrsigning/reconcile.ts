import { certificateRequestDetails, type CertificateRequestDetails, type CertificateSigningRequest, type CsrCondition } from '@cluster/apimachinery';
import { signerVerdict } from './policy.js';

export type { CertificateSigningRequest, CsrCondition } from '@cluster/apimachinery';

export const hasTrueCondition = (csr: CertificateSigningRequest, type: string) =>
  (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

/** What the signer does with one request. */
export type SigningAction =
  | { action: 'skip'; why: string }
  | { action: 'fail'; message: string }
  | { action: 'sign'; request: CertificateRequestDetails; usages: string[]; honourSubjectAltNames: boolean; notBefore: Date; notAfter: Date };

export interface SigningPolicy {
  apiDomain: string;
  /** --cluster-signing-duration. */
  maxDurationMs: number;
  /** The CA's own expiry: nothing it signs outlives it. */
  caNotAfter: Date;
  now: Date;
}

const BACKDATE_MS = 5 * 60 * 1000;
const SHORT_LIVED_MS = 8 * 60 * 60 * 1000;

/**
 * The validity window of a certificate: lifetime = min(--cluster-signing-duration,
 * spec.expirationSeconds) from now, never past the CA's expiry, started a little early for clock
 * skew (5 minutes, less for short-lived certificates so their lifetime stays close to the request).
 */
export function validityWindow(policy: SigningPolicy, expirationSeconds: number | null | undefined): { notBefore: Date; notAfter: Date } {
  const ttl = expirationSeconds ? Math.min(policy.maxDurationMs, expirationSeconds * 1000) : policy.maxDurationMs;
  const backdate = ttl < SHORT_LIVED_MS ? Math.min(BACKDATE_MS, Math.floor(ttl / 96)) : BACKDATE_MS;
  const notBefore = new Date(policy.now.getTime() - backdate);
  const end = policy.now.getTime() + ttl;
  const notAfter = new Date(Math.min(end, policy.caNotAfter.getTime()));
  return { notBefore, notAfter };
}

/**
 * Upstream's signer, decided purely: only approved requests of a built-in signer that are neither
 * failed nor issued are looked at; one that breaks its signer's rules fails with
 * `SignerValidationFailure`; the rest are signed.
 */
export function signingAction(csr: CertificateSigningRequest, policy: SigningPolicy): SigningAction {
  if (csr.status?.certificate) return { action: 'skip', why: 'issued' };
  if (!hasTrueCondition(csr, 'Approved')) return { action: 'skip', why: 'not approved' };
  if (hasTrueCondition(csr, 'Denied')) return { action: 'skip', why: 'denied' };
  if (hasTrueCondition(csr, 'Failed')) return { action: 'skip', why: 'failed' };
  let details: CertificateRequestDetails;
  try {
    details = certificateRequestDetails(Buffer.from(csr.spec?.request ?? '', 'base64'));
  } catch (err) {
    return { action: 'fail', message: `unable to parse csr: ${(err as Error).message}` };
  }
  const usages = csr.spec?.usages ?? [];
  const verdict = signerVerdict(policy.apiDomain, csr.spec?.signerName ?? '', details, usages);
  if (!verdict.recognized) return { action: 'skip', why: 'not a built-in signer' };
  if (verdict.error !== undefined) return { action: 'fail', message: verdict.error };
  return { action: 'sign', request: details, usages, honourSubjectAltNames: verdict.honourSubjectAltNames, ...validityWindow(policy, csr.spec?.expirationSeconds) };
}

/** The Failed condition a request that breaks its signer's rules gets (upstream's reason). */
export function failedCondition(message: string, now: Date): CsrCondition {
  const t = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message, lastUpdateTime: t, lastTransitionTime: t };
}
