import { BOOTSTRAP_TOKEN, bootstrapTokenExpired, parseBootstrapToken, type KubeObject } from '@cluster/apimachinery';
import { bootstrapTokens, type Secret } from '../bootstraptoken/secrets.js';
import { detachedSignature } from './jws.js';

export const CLUSTER_INFO_NAMESPACE = 'cluster-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const KUBECONFIG_KEY = 'kubeconfig';
export const SIGNATURE_KEY_PREFIX = 'jws-kubeconfig-';

export interface ConfigMap extends KubeObject {
  data?: Record<string, string> | null;
}

/** What to write to `cluster-info`: nothing, a create, or an update of the read object. */
export type ClusterInfoPlan = { op: 'none' } | { op: 'create' | 'update'; object: ConfigMap };

export interface ClusterInfoInput {
  /** `cluster-public/cluster-info` as read, or undefined when it does not exist. */
  current: ConfigMap | undefined;
  /** The Secrets of `cluster-system` (any type; non-tokens are ignored). */
  secrets: readonly Secret[];
  /** The wanted `kubeconfig` value (see clusterInfoKubeconfig). */
  kubeconfig: string;
  apiDomain: string;
  /** Now, in ms since the epoch. */
  now: number;
}

/**
 * The tokens that sign `cluster-info` (upstream's validateSecretForSigning): a well-formed id and
 * secret, the name matching the id, `usage-bootstrap-signing: "true"`, and not expired (an
 * unreadable expiration counts as expired). Pure.
 */
export function signingTokens(secrets: readonly Secret[], apiDomain: string, now: number): { id: string; secret: string }[] {
  const T = BOOTSTRAP_TOKEN;
  const out: { id: string; secret: string }[] = [];
  for (const { secret, data } of bootstrapTokens(secrets, apiDomain)) {
    const token = parseBootstrapToken(`${data[T.idKey] ?? ''}.${data[T.secretKey] ?? ''}`);
    if (!token || secret.metadata.name !== `${T.secretPrefix}${token.id}`) continue;
    if (data[T.usageSigningKey] !== 'true' || bootstrapTokenExpired(data, now)) continue;
    out.push(token);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function sameData(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/**
 * Decides the write that makes `cluster-info` hold the wanted `kubeconfig` and exactly one
 * `jws-kubeconfig-<id>` per signing token (SPEC 4.12); other keys are kept. Signatures of
 * deleted, expired or non-signing tokens go; a changed kubeconfig changes every signature.
 * Returns `none` when the data is already right. Pure apart from computing HMACs (async in jose).
 */
export async function reconcileClusterInfo(input: ClusterInfoInput): Promise<ClusterInfoPlan> {
  const have = input.current?.data ?? {};
  const want: Record<string, string> = {};
  for (const [k, v] of Object.entries(have)) if (!k.startsWith(SIGNATURE_KEY_PREFIX)) want[k] = v;
  want[KUBECONFIG_KEY] = input.kubeconfig;
  for (const t of signingTokens(input.secrets, input.apiDomain, input.now)) {
    want[`${SIGNATURE_KEY_PREFIX}${t.id}`] = await detachedSignature(input.kubeconfig, t.id, t.secret);
  }
  if (!input.current) {
    return {
      op: 'create',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO_NAME, namespace: CLUSTER_INFO_NAMESPACE }, data: want },
    };
  }
  if (sameData(have, want)) return { op: 'none' };
  return { op: 'update', object: { ...structuredClone(input.current), data: want } };
}
