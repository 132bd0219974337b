import {
  invalid,
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
  type FieldErrorList,
  type KubeObject,
} from '@cluster/apimachinery';
import type { SubresourceCreater } from '../../../registry/registration.js';
import type { ServiceAccountTokenIssuer } from '../../../authn/service-account-token.js';
import type { ObjectLookup } from '../../../authn/service-account.js';

/** Upstream's MinTokenAgeSec and the 2^32 s cap of ValidateTokenRequest. */
export const MIN_TOKEN_SECONDS = 600;
export const MAX_TOKEN_SECONDS = 2 ** 32;
export const DEFAULT_TOKEN_SECONDS = 3600;

interface TokenRequest extends KubeObject {
  spec?: {
    audiences?: string[] | null;
    expirationSeconds?: number | null;
    boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } | null;
  };
}

/** What the token subresource needs; `secrets` and `pods` read the object a token is bound to. */
export interface TokenRequestDeps {
  issuer: ServiceAccountTokenIssuer;
  /** --api-audiences: the default `spec.audiences`. */
  apiAudiences: readonly string[];
  secrets: ObjectLookup;
  pods: ObjectLookup;
  apiDomain: string;
  now?: () => number;
}

/** Upstream's ValidateTokenRequest (after defaulting). Pure. */
export function validateTokenRequest(req: TokenRequest, saName: string, namespace: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (req.metadata.name && req.metadata.name !== saName) {
    errs.push(invalid('metadata.name', req.metadata.name, 'must match the service account name if specified'));
  }
  if (req.metadata.namespace && req.metadata.namespace !== namespace) {
    errs.push(invalid('metadata.namespace', req.metadata.namespace, 'must match the service account namespace if specified'));
  }
  const secs = req.spec?.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
  if (secs < MIN_TOKEN_SECONDS) errs.push(invalid('spec.expirationSeconds', secs, 'may not specify a duration less than 10 minutes'));
  if (secs > MAX_TOKEN_SECONDS) errs.push(invalid('spec.expirationSeconds', secs, 'may not specify a duration larger than 2^32 seconds'));
  return errs;
}

/** The `YYYY-MM-DDTHH:MM:SSZ` form of metav1.Time. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * serviceaccounts/token (POST a TokenRequest): defaults audiences to the API audiences and
 * expirationSeconds to 3600, checks them (422), resolves a bound Secret or Pod (404 when missing,
 * 409 on a uid mismatch, 400 for a pod running as another account or any other kind), and answers the request with `status.token` and `status.expirationTimestamp`.
 */
export function tokenRequestCreater(deps: TokenRequestDeps): SubresourceCreater {
  const gk = { group: `authentication.${deps.apiDomain}`, kind: 'TokenRequest' };
  return {
    async create(req, parent, body) {
      const tr = body as TokenRequest;
      const errs = validateTokenRequest(tr, req.name, req.namespace);
      if (errs.length > 0) throw newInvalid(gk, '', errs);
      const spec = { ...tr.spec };
      if (!spec.audiences || spec.audiences.length === 0) spec.audiences = [...deps.apiAudiences];
      spec.expirationSeconds ??= DEFAULT_TOKEN_SECONDS;
      let secret: { name: string; uid: string } | undefined;
      let pod: { name: string; uid: string } | undefined;
      const ref = spec.boundObjectRef;
      if (ref) {
        const group = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/')[0] : '';
        const version = (ref.apiVersion ?? '').split('/').pop() ?? '';
        const name = ref.name ?? '';
        const bound = (resource: string, obj: KubeObject | undefined): { name: string; uid: string } => {
          if (!obj) throw newNotFound({ group: '', resource }, name);
          const uid = obj.metadata.uid ?? '';
          if (ref.uid && ref.uid !== uid) {
            throw newConflict(
              { group: '', resource },
              name,
              `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
            );
          }
          return { name, uid };
        };
        if (group === '' && ref.kind === 'Secret') {
          secret = bound('secrets', await deps.secrets(req.namespace, name));
        } else if (group === '' && ref.kind === 'Pod') {
          const obj = await deps.pods(req.namespace, name);
          // Only a pod running as this account may carry its token (a kubelet asks for the pod's own).
          if (obj && (obj as { spec?: { serviceAccountName?: string } }).spec?.serviceAccountName !== req.name) {
            throw newBadRequest(`cannot bind token for serviceaccount "${req.name}" to pod running with different serviceaccount name.`);
          }
          pod = bound('pods', obj);
        } else {
          throw newBadRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
        }
      }
      const now = deps.now?.() ?? Date.now();
      const { token, expiresAt } = await deps.issuer.issue({
        namespace: req.namespace,
        serviceAccount: { name: parent.metadata.name ?? req.name, uid: parent.metadata.uid ?? '' },
        secret,
        pod,
        audiences: spec.audiences,
        expirationSeconds: spec.expirationSeconds,
        now,
      });
      return {
        metadata: { ...tr.metadata, name: req.name, namespace: req.namespace, creationTimestamp: rfc3339(now) },
        spec,
        status: { token, expirationTimestamp: rfc3339(expiresAt) },
      } as KubeObject;
    },
  };
}
