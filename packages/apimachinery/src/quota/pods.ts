import type { KubeObject } from '../meta/types.js';
import { isQualifiedName } from '../validation/name-rules.js';
import { intersection, objectCountName, type QuotaEvaluator, type ScopeRequirement } from './evaluator.js';
import { addUsage, countOf, maxUsage, toUsage, type ResourceList, type Usage } from './resource-list.js';

interface Container {
  resources?: { requests?: ResourceList; limits?: ResourceList };
}
interface AffinityTerm {
  namespaces?: string[];
  namespaceSelector?: unknown;
}
interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: AffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: Array<{ podAffinityTerm?: AffinityTerm }>;
}
/** The parts of a Pod quota reads. */
export interface QuotaPod extends KubeObject {
  spec?: {
    containers?: Container[];
    initContainers?: Container[];
    overhead?: ResourceList;
    activeDeadlineSeconds?: number;
    priorityClassName?: string;
    affinity?: { podAffinity?: PodAffinity; podAntiAffinity?: PodAffinity };
  };
  status?: { phase?: string };
}

const POD_COUNT = objectCountName('', 'pods');
/** The resources measured for pods (besides hugepages and extended resources). */
const POD_RESOURCES = [
  POD_COUNT,
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
];
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** Quota on these makes every container state them (upstream's backward-compatibility rule). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** Unprefixed names and names under *kubernetes.io/ are native (helper.IsNativeResource). */
const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
/** helper.IsExtendedResourceName: not native, not `requests.`-prefixed, and `requests.<name>` is a qualified name. */
const isExtended = (name: string) => !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;

/** What one set of requests and limits counts for (podComputeUsageHelper). */
function computeUsage(requests: Usage, limits: Usage): Usage {
  const out: Usage = new Map([['pods', countOf(1)]]);
  const pairs: Array<[string, Usage, string[]]> = [
    ['cpu', requests, ['cpu', 'requests.cpu']],
    ['cpu', limits, ['limits.cpu']],
    ['memory', requests, ['memory', 'requests.memory']],
    ['memory', limits, ['limits.memory']],
    ['ephemeral-storage', requests, ['ephemeral-storage', 'requests.ephemeral-storage']],
    ['ephemeral-storage', limits, ['limits.ephemeral-storage']],
  ];
  for (const [name, list, names] of pairs) {
    const q = list.get(name);
    if (q) for (const n of names) out.set(n, q);
  }
  for (const [name, q] of requests) {
    if (name.startsWith('hugepages-')) {
      out.set(name, q);
      out.set(`requests.${name}`, q);
    }
    if (isExtended(name)) out.set(`requests.${name}`, q);
  }
  return out;
}

/** Whether a pod still counts for compute quota: not terminal and not past its deletion grace (QuotaV1Pod). */
export function podCharged(pod: QuotaPod, now: Date): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const deletion = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds;
  if (deletion && grace !== undefined && grace !== null) {
    const ends = Date.parse(deletion) + grace * 1000;
    if (now.getTime() > ends) return false;
  }
  return true;
}

/** BestEffort QoS: no container or init container requests or limits any cpu or memory. */
export function podBestEffort(pod: QuotaPod): boolean {
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    for (const list of [c.resources?.requests, c.resources?.limits]) {
      const usage = toUsage(list);
      for (const name of ['cpu', 'memory']) if ((usage.get(name)?.nanos ?? 0n) > 0n) return false;
    }
  }
  return true;
}

const podTerminating = (pod: QuotaPod) => typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0;

function crossNamespaceAffinity(pod: QuotaPod): boolean {
  const cross = (t: AffinityTerm | undefined) => !!t && ((t.namespaces?.length ?? 0) > 0 || (t.namespaceSelector !== undefined && t.namespaceSelector !== null));
  for (const a of [pod.spec?.affinity?.podAffinity, pod.spec?.affinity?.podAntiAffinity]) {
    if (a?.requiredDuringSchedulingIgnoredDuringExecution?.some(cross)) return true;
    if (a?.preferredDuringSchedulingIgnoredDuringExecution?.some((w) => cross(w.podAffinityTerm))) return true;
  }
  return false;
}

/** A PriorityClass requirement read as a label selector over {PriorityClass: <the pod's class>}. */
function priorityClassMatches(pod: QuotaPod, r: ScopeRequirement): boolean {
  const cls = pod.spec?.priorityClassName || undefined;
  const values = r.values ?? [];
  switch (r.operator) {
    case 'Exists':
      return cls !== undefined;
    case 'DoesNotExist':
      return cls === undefined;
    case 'In':
      return cls !== undefined && values.includes(cls);
    case 'NotIn':
      return cls === undefined || !values.includes(cls);
    default:
      throw new Error(`failed to parse and convert selector: "${r.operator ?? ''}" is not a valid scope selector operator`);
  }
}

/** Whether the pod is in the scope (podMatchesScopeFunc). */
export function podMatchesScope(r: ScopeRequirement, pod: QuotaPod): boolean {
  switch (r.scopeName) {
    case 'Terminating':
      return podTerminating(pod);
    case 'NotTerminating':
      return !podTerminating(pod);
    case 'BestEffort':
      return podBestEffort(pod);
    case 'NotBestEffort':
      return !podBestEffort(pod);
    case 'PriorityClass':
      return priorityClassMatches(pod, r);
    case 'CrossNamespacePodAffinity':
      return crossNamespaceAffinity(pod);
    default:
      return false;
  }
}

/**
 * What a pod uses (PodUsageFunc): `count/pods` always; while it is charged (podCharged), also
 * `pods` and its requests and limits: containers summed, each init container's if larger, plus
 * the overhead.
 */
export function podUsage(pod: QuotaPod, now: Date): Usage {
  const out: Usage = new Map([[POD_COUNT, countOf(1)]]);
  if (!podCharged(pod, now)) return out;
  let requests: Usage = new Map();
  let limits: Usage = new Map();
  for (const c of pod.spec?.containers ?? []) {
    requests = addUsage(requests, toUsage(c.resources?.requests));
    limits = addUsage(limits, toUsage(c.resources?.limits));
  }
  for (const c of pod.spec?.initContainers ?? []) {
    requests = maxUsage(requests, toUsage(c.resources?.requests));
    limits = maxUsage(limits, toUsage(c.resources?.limits));
  }
  const overhead = toUsage(pod.spec?.overhead);
  requests = addUsage(requests, overhead);
  limits = addUsage(limits, overhead);
  return addUsage(out, computeUsage(requests, limits));
}

/** The pod evaluator (pkg/quota/v1/evaluator/core/pods.go). */
export const podEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'pods',
  handles: (op) => op === 'CREATE',
  matchingResources(input) {
    const out = intersection(input, POD_RESOURCES);
    for (const name of input) {
      if (POD_RESOURCE_PREFIXES.some((p) => name.startsWith(p))) out.push(name);
      if (!isNative(name) && name.startsWith('requests.')) out.push(name);
    }
    return out;
  },
  matchesScope: (r, obj) => podMatchesScope(r, obj as QuotaPod),
  constraints(required, obj) {
    const pod = obj as QuotaPod;
    const requiredSet = required.filter((r) => VALIDATION_SET.has(r));
    const missing = new Set<string>();
    for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
      const has = computeUsage(toUsage(c.resources?.requests), toUsage(c.resources?.limits));
      for (const r of requiredSet) if (!has.has(r)) missing.add(r);
    }
    return missing.size === 0 ? undefined : `must specify ${[...missing].sort().join(',')}`;
  },
  usage: (obj, now) => podUsage(obj as QuotaPod, now),
};
