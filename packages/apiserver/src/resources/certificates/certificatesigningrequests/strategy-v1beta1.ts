import { certificateRequestDetails, nodeClientRequestError, nodeServingRequestError } from '@cluster/apimachinery';
import type { ResourceStrategy, StrategyContext } from '../../../registry/strategy.js';
import type { CertificateSigningRequest } from '../types.js';
import { legacyUnknownSigner } from '../types.js';
import { validateCsr } from '../validation.js';
import { csrStrategy } from './strategy.js';

/**
 * The signer a v1beta1 request without one gets (upstream's DefaultSignerNameFromSpec): the
 * node-agent client or serving signer when the request is one, else legacy-unknown. Pure.
 */
export function defaultSignerName(spec: NonNullable<CertificateSigningRequest['spec']>, apiDomain: string): string {
  let details;
  try {
    details = certificateRequestDetails(Buffer.from(spec.request ?? '', 'base64'));
  } catch {
    return legacyUnknownSigner(apiDomain);
  }
  const usages = spec.usages ?? [];
  if (!nodeClientRequestError(details, usages)) return `${apiDomain}/api-server-client-node-agent`;
  if (!nodeServingRequestError(details, usages)) return `${apiDomain}/node-agent-serving`;
  return legacyUnknownSigner(apiDomain);
}

/**
 * certificates/v1beta1 behaviour on the same stored objects: v1beta1's defaults (usages
 * `digital signature` and `key encipherment`, the signer from the request) and the legacy-unknown
 * signer allowed on create; everything else is v1's.
 */
export function csrV1beta1Strategy(apiDomain: string): ResourceStrategy<CertificateSigningRequest> {
  const v1 = csrStrategy(apiDomain);
  return {
    ...v1,
    prepareForCreate(obj: CertificateSigningRequest, ctx: StrategyContext) {
      const spec = { ...obj.spec };
      if (!spec.usages || spec.usages.length === 0) spec.usages = ['digital signature', 'key encipherment'];
      if (!spec.signerName) spec.signerName = defaultSignerName(spec, apiDomain);
      obj.spec = spec;
      v1.prepareForCreate(obj, ctx);
    },
    validate: (obj: CertificateSigningRequest) => validateCsr(obj, apiDomain, true),
  };
}
