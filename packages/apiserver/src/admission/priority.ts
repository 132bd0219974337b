import { isNotFound, newForbidden, type KubeObject } from '@cluster/apimachinery';
import type { GenericRegistry } from '../registry/generic-registry.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
import { isSystemPriorityClass, type PriorityClass } from '../resources/scheduling/priorityclasses/system-classes.js';

interface PodLike extends KubeObject {
  spec?: { priorityClassName?: string; priority?: number; preemptionPolicy?: string; [field: string]: unknown };
}

/** What the plugin reads: the PriorityClasses (a list, and one by name; undefined when absent). */
export interface PriorityClassLookup {
  list(): Promise<readonly PriorityClass[]>;
  get(name: string): Promise<PriorityClass | undefined>;
}

/**
 * Reads PriorityClasses from their registry: the watch cache answers; a miss (a class created a
 * moment ago on another replica) is confirmed with a quorum read, as for namespaces.
 */
export function priorityClassLookup(registry: GenericRegistry): PriorityClassLookup {
  return {
    list: async () => (await registry.list('', { hasSelector: false })).items as PriorityClass[],
    async get(name) {
      try {
        return (await registry.get('', name, '0')) as PriorityClass;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      try {
        return (await registry.get('', name)) as PriorityClass;
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
  };
}

/**
 * The class pods without a priorityClassName get: among the classes marked globalDefault, the one
 * with the lowest value (several can exist after a race, as upstream says). Pure.
 */
export function defaultPriorityClass(classes: readonly PriorityClass[]): PriorityClass | undefined {
  let found: PriorityClass | undefined;
  for (const pc of classes) if (pc.globalDefault && (!found || (found.value ?? 0) > (pc.value ?? 0))) found = pc;
  return found;
}

/**
 * Upstream's Priority admission plugin (v1.24), and the delete protection of the system classes
 * (upstream's PriorityClass REST Delete):
 * - a new pod's priorityClassName resolves to spec.priority and spec.preemptionPolicy (the
 *   globalDefault class, or 0, when unnamed); an unknown class, or a priority or preemption
 *   policy differing from the class's, is 403 Forbidden;
 * - a pod update keeps the stored priority and preemption policy when the request leaves them out;
 * - a second globalDefault class is 403 Forbidden;
 * - system-cluster-critical and system-node-critical cannot be deleted.
 */
export function priorityAdmission(schedulingGroup: string, classes: PriorityClassLookup): AdmissionPlugin {
  const pcResource = { group: schedulingGroup, resource: 'priorityclasses' };
  const isPods = (a: AdmissionAttributes) => a.resource.group === '' && a.resource.resource === 'pods';
  const isClasses = (a: AdmissionAttributes) => a.resource.group === schedulingGroup && a.resource.resource === 'priorityclasses';
  return {
    name: 'Priority',
    admit(a) {
      if (a.subresource || !isPods(a) || !a.object) return;
      return (async () => {
        const pod = a.object as PodLike;
        const spec = (pod.spec ??= {});
        if (a.operation === 'UPDATE') {
          const old = (a.oldObject as PodLike | undefined)?.spec;
          if (spec.priority === undefined && old?.priority !== undefined) spec.priority = old.priority;
          if (spec.preemptionPolicy === undefined && old?.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
          return;
        }
        if (a.operation !== 'CREATE') return;
        const gr = { group: '', resource: 'pods' };
        let pc: PriorityClass | undefined;
        if (!spec.priorityClassName) {
          pc = defaultPriorityClass(await classes.list());
          if (pc) spec.priorityClassName = pc.metadata.name ?? '';
        } else {
          pc = await classes.get(spec.priorityClassName);
          if (!pc) throw newForbidden(gr, a.name, `no PriorityClass with name ${spec.priorityClassName} was found`);
        }
        const priority = pc?.value ?? 0;
        if (spec.priority !== undefined && spec.priority !== priority) {
          throw newForbidden(gr, a.name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
        }
        spec.priority = priority;
        const policy = pc?.preemptionPolicy;
        if (policy !== undefined) {
          if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== policy) {
            throw newForbidden(gr, a.name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
          }
          spec.preemptionPolicy = policy;
        }
      })();
    },
    validate(a) {
      if (a.subresource || !isClasses(a)) return;
      return (async () => {
        if (a.operation === 'DELETE') {
          if (isSystemPriorityClass(a.name)) throw newForbidden(pcResource, a.name, 'this is a system priority class and cannot be deleted');
          return;
        }
        const pc = a.object as PriorityClass | undefined;
        if (!pc?.globalDefault) return;
        const current = defaultPriorityClass(await classes.list());
        if (current && (a.operation === 'CREATE' || current.metadata.name !== pc.metadata.name)) {
          throw newForbidden(pcResource, a.name, `PriorityClass ${current.metadata.name ?? ''} is already marked as default. Only one default can exist`);
        }
      })();
    },
  };
}
