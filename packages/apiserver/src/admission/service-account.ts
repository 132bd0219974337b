import type { KubeObject } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
import { generateName } from '../registry/object-meta.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

/**
 * Where a pod's API credentials are mounted. Upstream's path, kept literally whatever --api-domain
 * is: in-cluster clients (client-go's rest.InClusterConfig and every other) read it there.
 */
export const API_TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The prefix of the projected token volume's name (upstream's `kube-api-access-<suffix>`). */
export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
/** The token lifetime the volume asks for: upstream's warn-only bound-token expiry (1 h + 7 s). */
export const TOKEN_VOLUME_EXPIRATION_SECONDS = 3607;
/** The ConfigMap the root-CA publisher keeps in every namespace. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';

interface VolumeMount {
  name?: string;
  mountPath?: string;
  readOnly?: boolean;
}
interface Container {
  volumeMounts?: VolumeMount[] | null;
}
interface PodSpecAccount {
  serviceAccountName?: string;
  /** Deprecated alias of serviceAccountName, still read and written by v1 clients. */
  serviceAccount?: string;
  automountServiceAccountToken?: boolean | null;
  containers?: Container[] | null;
  initContainers?: Container[] | null;
  volumes?: { name?: string }[] | null;
  imagePullSecrets?: { name?: string }[] | null;
}
interface PodLike {
  metadata?: { annotations?: Record<string, string> | null };
  spec?: PodSpecAccount | null;
}
interface ServiceAccountLike {
  automountServiceAccountToken?: boolean | null;
  imagePullSecrets?: { name?: string }[] | null;
}

/** Reads a namespace's service account; undefined when it does not exist. */
export type ServiceAccountLookup = (namespace: string, name: string) => Promise<KubeObject | undefined>;

function isMirrorPod(pod: PodLike, apiDomain: string): boolean {
  return pod.metadata?.annotations?.[`${apiDomain}/config.mirror`] !== undefined;
}

/**
 * The account a new pod runs as (upstream ServiceAccount admission, naming part): the one it
 * names (`serviceAccountName`, else the deprecated `serviceAccount`), or `default`. Both fields
 * then carry it. Mirror pods (`<apiDomain>/config.mirror`), which a node agent reports for static
 * pods, are left alone as upstream does. Changes `spec` in place. Pure.
 */
export function defaultPodServiceAccount(pod: PodLike, apiDomain: string): void {
  if (!pod.spec || typeof pod.spec !== 'object') return;
  if (isMirrorPod(pod, apiDomain)) return;
  const name = pod.spec.serviceAccountName || pod.spec.serviceAccount || DEFAULT_SERVICE_ACCOUNT;
  pod.spec.serviceAccountName = name;
  pod.spec.serviceAccount = name;
}

/** Upstream's shouldAutomount: the pod's field wins, then the account's, else true. */
export function shouldAutomount(pod: PodLike, account: ServiceAccountLike | undefined): boolean {
  if (typeof pod.spec?.automountServiceAccountToken === 'boolean') return pod.spec.automountServiceAccountToken;
  if (typeof account?.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

/** The projected volume source of the API credentials: a bound token, the cluster CA and the namespace. */
export function tokenVolumeSource(): Record<string, unknown> {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: TOKEN_VOLUME_EXPIRATION_SECONDS } },
      { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

/**
 * Upstream's mountServiceAccountToken: every container and init container without a mount at
 * API_TOKEN_MOUNT_PATH gets a read-only one of the pod's `kube-api-access-*` volume, which is
 * added (named with a random suffix) unless the pod already has one. A pod all of whose
 * containers already mount something there gets nothing. Changes `spec` in place.
 */
export function mountServiceAccountToken(spec: PodSpecAccount, newName: () => string = () => generateName(TOKEN_VOLUME_PREFIX)): void {
  const existing = (spec.volumes ?? []).find((v) => typeof v?.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = existing?.name ?? newName();
  let needsVolume = false;
  for (const list of [spec.initContainers, spec.containers]) {
    if (!Array.isArray(list)) continue;
    for (const c of list) {
      if (!c || typeof c !== 'object') continue;
      const mounts = Array.isArray(c.volumeMounts) ? c.volumeMounts : [];
      if (mounts.some((m) => m?.mountPath === API_TOKEN_MOUNT_PATH)) continue;
      c.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: API_TOKEN_MOUNT_PATH }];
      needsVolume = true;
    }
  }
  if (!existing && needsVolume) {
    spec.volumes = [...(Array.isArray(spec.volumes) ? spec.volumes : []), { name: volumeName, projected: tokenVolumeSource() } as { name: string }];
  }
}

/**
 * Upstream's ServiceAccount admission on pod creation: names the account (`default` when none),
 * mounts the API credentials volume unless the pod or, failing that, its account opts out
 * (`automountServiceAccountToken: false`), and copies the account's imagePullSecrets into a pod
 * that names none. Unlike upstream an account that does not exist (yet) is not an error: the pod
 * is then treated as its own field says (mounted by default). Mirror pods are left alone.
 */
export function serviceAccountAdmission(apiDomain: string, getServiceAccount?: ServiceAccountLookup): AdmissionPlugin {
  const admitPod = async (a: AdmissionAttributes): Promise<void> => {
    const pod = a.object as PodLike;
    if (!pod.spec || typeof pod.spec !== 'object' || isMirrorPod(pod, apiDomain)) return;
    defaultPodServiceAccount(pod, apiDomain);
    const account = getServiceAccount ? ((await getServiceAccount(a.namespace, pod.spec.serviceAccountName!)) as ServiceAccountLike | undefined) : undefined;
    if (shouldAutomount(pod, account)) mountServiceAccountToken(pod.spec);
    const pulls = account?.imagePullSecrets;
    if ((!Array.isArray(pod.spec.imagePullSecrets) || pod.spec.imagePullSecrets.length === 0) && Array.isArray(pulls) && pulls.length > 0) {
      pod.spec.imagePullSecrets = pulls.map((s) => ({ name: s?.name }));
    }
  };
  return {
    name: 'ServiceAccount',
    // Not an async function: for every other kind it returns at once, without a promise.
    admit(a) {
      if (a.operation !== 'CREATE' || a.subresource || a.resource.group !== '' || a.resource.resource !== 'pods' || !a.object) return;
      return admitPod(a);
    },
    validate() {},
  };
}
