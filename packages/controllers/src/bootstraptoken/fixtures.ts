import { BOOTSTRAP_TOKEN, secretTypes, type KubeObject } from '@cluster/apimachinery';
import { BOOTSTRAP_TOKEN_NAMESPACE, type Secret } from './secrets.js';

/** For tests: a bootstrap token Secret `bootstrap-token-<id>` with `token-id` set and the other data given decoded. */
export function bootstrapTokenSecret(apiDomain: string, id: string, data: Record<string, string>, meta: Partial<KubeObject['metadata']> = {}): Secret {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${BOOTSTRAP_TOKEN.secretPrefix}${id}`, namespace: BOOTSTRAP_TOKEN_NAMESPACE, ...meta },
    type: secretTypes(apiDomain).bootstrapToken,
    data: { [BOOTSTRAP_TOKEN.idKey]: Buffer.from(id).toString('base64'), ...encoded },
  };
}
