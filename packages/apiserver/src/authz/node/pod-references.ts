/** The parts of a pod the Node authorizer and NodeRestriction read (core/v1 Pod, loosely typed). */
export interface PodShape {
  metadata?: { name?: string; namespace?: string; uid?: string; annotations?: Record<string, string> | null; labels?: Record<string, string> | null } | null;
  spec?: {
    nodeName?: string | null;
    serviceAccountName?: string | null;
    imagePullSecrets?: Array<{ name?: string } | null> | null;
    containers?: ContainerShape[] | null;
    initContainers?: ContainerShape[] | null;
    ephemeralContainers?: ContainerShape[] | null;
    volumes?: VolumeShape[] | null;
  } | null;
}

interface ContainerShape {
  envFrom?: Array<{ secretRef?: NameRef; configMapRef?: NameRef } | null> | null;
  env?: Array<{ valueFrom?: { secretKeyRef?: NameRef; configMapKeyRef?: NameRef } | null } | null> | null;
}

type NameRef = { name?: string | null } | null | undefined;

type VolumeShape = Record<string, unknown> & {
  secret?: { secretName?: string | null } | null;
  configMap?: NameRef;
  azureFile?: { secretName?: string | null } | null;
  projected?: { sources?: Array<{ secret?: NameRef; configMap?: NameRef } | null> | null } | null;
  csi?: { nodePublishSecretRef?: NameRef } | null;
  persistentVolumeClaim?: { claimName?: string | null } | null;
  ephemeral?: unknown;
  name?: string | null;
};

/** Volume sources whose `secretRef` names a Secret of the pod's namespace (upstream VisitPodSecretNames). */
const SECRET_REF_VOLUMES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'];

const containersOf = (pod: PodShape): ContainerShape[] =>
  [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].filter(Boolean);

/**
 * Names of every Secret a pod references, in any container kind (init and ephemeral included),
 * image pull secrets and volumes (upstream podutil.VisitPodSecretNames over all containers). Pure.
 */
export function podSecretNames(pod: PodShape): Set<string> {
  const out = new Set<string>();
  const add = (n: string | null | undefined) => void (n && out.add(n));
  for (const s of pod.spec?.imagePullSecrets ?? []) add(s?.name);
  for (const c of containersOf(pod)) {
    for (const e of c.envFrom ?? []) add(e?.secretRef?.name);
    for (const e of c.env ?? []) add(e?.valueFrom?.secretKeyRef?.name);
  }
  for (const v of pod.spec?.volumes ?? []) {
    if (!v) continue;
    add(v.secret?.secretName);
    add(v.azureFile?.secretName);
    add(v.csi?.nodePublishSecretRef?.name);
    for (const src of v.projected?.sources ?? []) add(src?.secret?.name);
    for (const kind of SECRET_REF_VOLUMES) add((v[kind] as { secretRef?: NameRef } | null | undefined)?.secretRef?.name);
  }
  return out;
}

/** Names of every ConfigMap a pod references (upstream podutil.VisitPodConfigmapNames). Pure. */
export function podConfigMapNames(pod: PodShape): Set<string> {
  const out = new Set<string>();
  const add = (n: string | null | undefined) => void (n && out.add(n));
  for (const c of containersOf(pod)) {
    for (const e of c.envFrom ?? []) add(e?.configMapRef?.name);
    for (const e of c.env ?? []) add(e?.valueFrom?.configMapKeyRef?.name);
  }
  for (const v of pod.spec?.volumes ?? []) {
    if (!v) continue;
    add(v.configMap?.name);
    for (const src of v.projected?.sources ?? []) add(src?.configMap?.name);
  }
  return out;
}

/** Names of the PersistentVolumeClaims a pod's volumes mount. Pure. */
export function podClaimNames(pod: PodShape): Set<string> {
  const out = new Set<string>();
  for (const v of pod.spec?.volumes ?? []) if (v?.persistentVolumeClaim?.claimName) out.add(v.persistentVolumeClaim.claimName);
  return out;
}

/**
 * Names of the PersistentVolumeClaims a pod's volumes use, an ephemeral volume's generated claim
 * (`<pod>-<volume>`) included (upstream's graph AddPod with ephemeral.VolumeClaimName). Pure.
 */
export function podVolumeClaimNames(pod: PodShape): Set<string> {
  const out = podClaimNames(pod);
  const podName = pod.metadata?.name ?? '';
  for (const v of pod.spec?.volumes ?? []) {
    if (v && !v.persistentVolumeClaim && v.ephemeral != null && v.name) out.add(`${podName}-${v.name}`);
  }
  return out;
}

/** Whether the pod is a mirror pod (a node agent's report of a static pod): the `<domain>/config.mirror` annotation. */
export function isMirrorPod(pod: PodShape, apiDomain: string): boolean {
  return pod.metadata?.annotations?.[`${apiDomain}/config.mirror`] !== undefined;
}
