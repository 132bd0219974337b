import type { KubeObject } from '../meta/types.js';

/** certificates/v1 CertificateSigningRequestCondition (JSON form). */
export interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

/** certificates/v1 CertificateSigningRequestSpec; `request` is base64 of the PEM bytes in JSON. */
export interface CsrSpec {
  request?: string;
  signerName?: string;
  expirationSeconds?: number | null;
  usages?: string[];
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** certificates/v1 CertificateSigningRequest in its JSON form; `status.certificate` is base64 of PEM. */
export interface CertificateSigningRequest extends KubeObject {
  spec?: CsrSpec;
  status?: { conditions?: CsrCondition[]; certificate?: string };
}
