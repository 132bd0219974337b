import { certificateRequestDetails, type CertificateRequestDetails } from '@cluster/apimachinery';
import { signerVerdict } from '../csrsigning/policy.js';
import { hasTrueCondition, type CertificateSigningRequest, type CsrCondition } from '../csrsigning/reconcile.js';

/** A kind of request the approver recognises, and what the requester must be allowed to have it approved. */
export interface ApprovalCandidate {
  /** The subresource of certificatesigningrequests the SubjectAccessReview asks `create` on. */
  subresource: 'selfnodeclient' | 'nodeclient';
  message: string;
}

/**
 * Upstream's SubjectAccessReview approver, decided purely: only pending node-agent client
 * requests are candidates (never serving or plain client certificates); a request whose subject
 * is its requester is a renewal (`selfnodeclient`), tried first; any node-agent client request is
 * a `nodeclient` one. Returns the candidates in the order to try, none when nothing is to be done.
 */
export function approvalCandidates(csr: CertificateSigningRequest, apiDomain: string): ApprovalCandidate[] {
  if (csr.status?.certificate) return [];
  if (hasTrueCondition(csr, 'Approved') || hasTrueCondition(csr, 'Denied')) return [];
  if (csr.spec?.signerName !== `${apiDomain}/api-server-client-node-agent`) return [];
  let details: CertificateRequestDetails;
  try {
    details = certificateRequestDetails(Buffer.from(csr.spec.request ?? '', 'base64'));
  } catch {
    return [];
  }
  const verdict = signerVerdict(apiDomain, csr.spec.signerName, details, csr.spec.usages ?? []);
  if (!verdict.recognized || verdict.error !== undefined) return [];
  const candidates: ApprovalCandidate[] = [];
  if (csr.spec.username === details.commonName) {
    candidates.push({ subresource: 'selfnodeclient', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' });
  }
  candidates.push({ subresource: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
  return candidates;
}

/** The SubjectAccessReview that asks whether the requester may have a candidate approved. */
export function approvalReview(csr: CertificateSigningRequest, apiDomain: string, c: ApprovalCandidate) {
  return {
    apiVersion: `authorization.${apiDomain}/v1`,
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      user: csr.spec?.username ?? '',
      uid: csr.spec?.uid,
      groups: csr.spec?.groups ?? [],
      extra: csr.spec?.extra,
      resourceAttributes: { group: `certificates.${apiDomain}`, resource: 'certificatesigningrequests', verb: 'create', subresource: c.subresource, version: '*' },
    },
  };
}

export function approvedCondition(message: string, now: Date): CsrCondition {
  const t = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { type: 'Approved', status: 'True', reason: 'AutoApproved', message, lastUpdateTime: t, lastTransitionTime: t };
}
