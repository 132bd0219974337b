import type { Container, PodSpec, PodTemplateSpec, Probe, Volume } from './types.js';

/**
 * Upstream's imagePullPolicy default: Always for an image without a tag or tagged `latest`
 * (and no digest), IfNotPresent otherwise.
 */
export function defaultPullPolicy(image: string | undefined): string {
  const ref = image ?? '';
  if (ref.includes('@')) return 'IfNotPresent';
  const lastSlash = ref.lastIndexOf('/');
  const colon = ref.indexOf(':', lastSlash + 1);
  const tag = colon < 0 ? '' : ref.slice(colon + 1);
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: Probe | undefined): void {
  if (!probe) return;
  probe.timeoutSeconds ??= 1;
  probe.periodSeconds ??= 10;
  probe.successThreshold ??= 1;
  probe.failureThreshold ??= 3;
  if (probe.httpGet) {
    probe.httpGet.path ??= '/';
    probe.httpGet.scheme ??= 'HTTP';
  }
}

function defaultContainer(c: Container): void {
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  c.imagePullPolicy ??= defaultPullPolicy(c.image);
  for (const p of c.ports ?? []) p.protocol ??= 'TCP';
  for (const e of c.env ?? []) {
    if (e.valueFrom?.fieldRef) e.valueFrom.fieldRef.apiVersion ??= 'v1';
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
}

/** Mode of files projected from secrets and config maps when none is given (0644). */
const DEFAULT_FILE_MODE = 420;

/** Volume source keys; a volume that names none of them is an emptyDir, as upstream defaults it. */
export const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile',
  'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume',
  'scaleIO', 'storageos', 'csi', 'ephemeral', 'image',
] as const;

function defaultVolume(v: Volume): void {
  if (!VOLUME_SOURCES.some((s) => v[s] !== undefined)) v.emptyDir = {};
  for (const source of ['secret', 'configMap', 'downwardAPI', 'projected'] as const) {
    const s = v[source] as { defaultMode?: number } | undefined;
    if (s && typeof s === 'object') s.defaultMode ??= DEFAULT_FILE_MODE;
  }
  const hostPath = v.hostPath as { type?: string } | undefined;
  if (hostPath && typeof hostPath === 'object') hostPath.type ??= '';
  defaultDownwardItems(v.downwardAPI);
  const projected = v.projected as { sources?: ProjectionSource[] } | undefined;
  for (const source of projected?.sources ?? []) {
    if (source.serviceAccountToken) source.serviceAccountToken.expirationSeconds ??= 3600;
    defaultDownwardItems(source.downwardAPI);
  }
  const claim = v.ephemeral as { volumeClaimTemplate?: { spec?: { volumeMode?: string } } } | undefined;
  if (claim?.volumeClaimTemplate) {
    claim.volumeClaimTemplate.spec ??= {};
    claim.volumeClaimTemplate.spec.volumeMode ??= 'Filesystem';
  }
}

interface ProjectionSource {
  serviceAccountToken?: { expirationSeconds?: number };
  downwardAPI?: unknown;
}

/** Downward API field references default to apiVersion v1. */
function defaultDownwardItems(source: unknown): void {
  const items = (source as { items?: Array<{ fieldRef?: { apiVersion?: string } }> } | undefined)?.items;
  for (const item of items ?? []) if (item.fieldRef) item.fieldRef.apiVersion ??= 'v1';
}

/** Upstream's SetDefaults_PodSpec and the container / volume defaults below it. Mutates `spec`. */
export function defaultPodSpec(spec: PodSpec): void {
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  if (spec.serviceAccount && !spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount;
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
  for (const v of spec.volumes ?? []) defaultVolume(v);
}

/** Pods get what templates get, plus enableServiceLinks (upstream's SetDefaults_Pod). Mutates `spec`. */
export function defaultPodOnlySpec(spec: PodSpec): void {
  defaultPodSpec(spec);
  spec.enableServiceLinks ??= true;
  // A limit without a request requests the same amount.
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const limits = c.resources?.limits;
    if (!limits || !c.resources) continue;
    const requests = { ...(c.resources.requests ?? {}) };
    for (const [name, value] of Object.entries(limits)) requests[name] ??= value;
    c.resources.requests = requests;
  }
}

/** Defaults of a workload's pod template (metadata and spec). Mutates `template`. */
export function defaultPodTemplateSpec(template: PodTemplateSpec | undefined): void {
  if (!template) return;
  template.spec ??= {};
  defaultPodSpec(template.spec);
}
