import { newForbidden, parseQuantity, type KubeObject } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/** A pod toleration (core/v1 Toleration) as stored. */
export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

/** The fields of a node.<domain>/v1 RuntimeClass the plugin reads. */
export interface RuntimeClassObject extends KubeObject {
  handler?: string;
  overhead?: { podFixed?: Record<string, string> | null } | null;
  scheduling?: { nodeSelector?: Record<string, string> | null; tolerations?: Toleration[] | null } | null;
}

interface PodLike extends KubeObject {
  spec?: {
    runtimeClassName?: string | null;
    overhead?: Record<string, string> | null;
    nodeSelector?: Record<string, string> | null;
    tolerations?: Toleration[] | null;
    [field: string]: unknown;
  };
}

/** Reads one RuntimeClass by name; undefined when there is none. */
export type RuntimeClassLookup = (name: string) => Promise<RuntimeClassObject | undefined>;

function sameToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') &&
    (a.tolerationSeconds ?? undefined) === (b.tolerationSeconds ?? undefined)
  );
}

/** Whether `ss` tolerates everything `t` does (upstream's tolerations.isSuperset). */
function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (sameToleration(ss, t)) return true;
  const ssKey = ss.key ?? '';
  if ((t.key ?? '') !== ssKey && (ssKey !== '' || ss.operator !== 'Exists')) return false;
  const ssEffect = ss.effect ?? '';
  if ((t.effect ?? '') !== ssEffect && ssEffect !== '') return false;
  if (ssEffect === 'NoExecute' && ss.tolerationSeconds != null) {
    if (t.tolerationSeconds == null || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ss.operator ?? '') {
    case 'Equal':
    case '':
      return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/**
 * Upstream's tolerations.MergeTolerations: both lists in order, leaving out a toleration another
 * one already covers (of two equal ones the first stays). Pure.
 */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((t2) => !sameToleration(t, t2) && isSuperset(t2, t))) return;
    merged.push(t);
  });
  return merged;
}

/** Semantic equality of two resource lists (quantities compared by amount; absent equals empty). */
function sameResources(a: Record<string, string> | null | undefined, b: Record<string, string> | null | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => {
    if (!(k in (b ?? {}))) return false;
    const x = parseQuantity(String(a![k]));
    const y = parseQuantity(String(b![k]));
    return x !== undefined && y !== undefined ? x.nanos === y.nanos : a![k] === b![k];
  });
}

/**
 * Upstream's RuntimeClass admission plugin (v1.24, PodOverhead on), for pods being created:
 * - a pod naming a RuntimeClass that does not exist is 403 Forbidden;
 * - mutating: the class's `overhead.podFixed` becomes `spec.overhead` (403 when the pod set a
 *   different one); its `scheduling.nodeSelector` is merged into `spec.nodeSelector` (403 when a key
 *   has another value there) and its tolerations merged into `spec.tolerations`;
 * - validating: `spec.overhead` must equal the class's overhead, and may be set only when the class
 *   defines one.
 */
export function runtimeClassAdmission(lookup: RuntimeClassLookup): AdmissionPlugin {
  const gr = { group: '', resource: 'pods' };
  const applies = (a: AdmissionAttributes) => a.operation === 'CREATE' && !a.subresource && a.resource.group === '' && a.resource.resource === 'pods' && !!a.object;
  const nameOf = (a: AdmissionAttributes) => a.name || a.object?.metadata.name || a.object?.metadata.generateName || 'Unknown';
  const classOf = async (a: AdmissionAttributes, pod: PodLike): Promise<RuntimeClassObject | undefined> => {
    const name = pod.spec?.runtimeClassName;
    if (!name) return undefined;
    const rc = await lookup(name);
    if (!rc) throw newForbidden(gr, nameOf(a), `pod rejected: RuntimeClass "${name}" not found`);
    return rc;
  };
  return {
    name: 'RuntimeClass',
    admit(a) {
      if (!applies(a)) return;
      return (async () => {
        const pod = a.object as PodLike;
        const rc = await classOf(a, pod);
        if (!rc) return;
        const spec = (pod.spec ??= {});
        if (rc.overhead) {
          const podFixed = rc.overhead.podFixed;
          if (spec.overhead != null && !sameResources(podFixed, spec.overhead)) {
            throw newForbidden(gr, nameOf(a), "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
          }
          if (podFixed) spec.overhead = { ...podFixed };
          else delete spec.overhead;
        }
        const scheduling = rc.scheduling;
        if (!scheduling) return;
        const runtimeSelector = scheduling.nodeSelector ?? {};
        if (spec.nodeSelector == null) {
          if (scheduling.nodeSelector != null) spec.nodeSelector = { ...runtimeSelector };
        } else {
          for (const [key, value] of Object.entries(runtimeSelector)) {
            const podValue = spec.nodeSelector[key];
            if (podValue !== undefined && podValue !== value) {
              throw newForbidden(gr, nameOf(a), `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${podValue}`);
            }
            spec.nodeSelector[key] = value;
          }
        }
        const merged = mergeTolerations(spec.tolerations ?? [], scheduling.tolerations ?? []);
        if (merged.length > 0) spec.tolerations = merged;
      })();
    },
    validate(a) {
      if (!applies(a)) return;
      return (async () => {
        const pod = a.object as PodLike;
        const rc = await classOf(a, pod);
        const overhead = pod.spec?.overhead;
        if (rc?.overhead) {
          if (!sameResources(rc.overhead.podFixed, overhead)) {
            throw newForbidden(gr, nameOf(a), "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
          }
        } else if (overhead != null) {
          throw newForbidden(gr, nameOf(a), 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
        }
      })();
    },
  };
}
