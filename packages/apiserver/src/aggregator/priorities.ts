import { apiServiceName } from '../resources/apiregistration/validation.js';
import type { ApiService } from '../resources/apiregistration/types.js';

/** Where a group and a version sort in discovery (higher first). */
export interface Priority {
  group: number;
  version: number;
}

/**
 * Upstream's priorities of the built-in group versions (kube-apiserver's apiVersionPriorities),
 * keyed by the group without the API domain (`authentication` for authentication.<apiDomain>).
 */
const BUILTIN: Readonly<Record<string, Priority>> = {
  '/v1': { group: 18000, version: 1 },
  'apps/v1': { group: 17800, version: 15 },
  'events/v1': { group: 17750, version: 15 },
  'events/v1beta1': { group: 17750, version: 5 },
  'authentication/v1': { group: 17700, version: 15 },
  'authentication/v1beta1': { group: 17700, version: 9 },
  'authorization/v1': { group: 17600, version: 15 },
  'authorization/v1beta1': { group: 17600, version: 9 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates/v1': { group: 17300, version: 15 },
  'certificates/v1beta1': { group: 17300, version: 9 },
  'networking/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization/v1': { group: 17000, version: 15 },
  'rbac.authorization/v1beta1': { group: 17000, version: 9 },
  'storage/v1': { group: 16800, version: 15 },
  'apiextensions/v1': { group: 16700, version: 15 },
  'admissionregistration/v1': { group: 16700, version: 15 },
  'scheduling/v1': { group: 16600, version: 15 },
  'coordination/v1': { group: 16500, version: 15 },
  'coordination/v1beta1': { group: 16500, version: 9 },
  'node/v1': { group: 16300, version: 15 },
  'discovery/v1': { group: 16200, version: 15 },
  'flowcontrol/v1': { group: 16100, version: 21 },
};

/** A built-in group upstream's table does not list: below the rest, as its comment advises. */
const UNLISTED: Priority = { group: 15800, version: 9 };
/** Upstream's crdregistration controller: custom resources sort low, versions by their names. */
export const CUSTOM_RESOURCE_PRIORITY: Priority = { group: 1000, version: 100 };

/** The priority of a group version this server serves itself. Pure. */
export function localPriority(group: string, version: string, apiDomain: string, custom: boolean): Priority {
  if (custom) return CUSTOM_RESOURCE_PRIORITY;
  const suffix = `.${apiDomain}`;
  const key = `${group.endsWith(suffix) ? group.slice(0, -suffix.length) : group}/${version}`;
  return BUILTIN[key] ?? UNLISTED;
}

/** The label that marks an APIService this server keeps (upstream's kube-aggregator.kubernetes.io/automanaged). */
export function automanagedLabel(apiDomain: string): string {
  return `kube-aggregator.${apiDomain}/automanaged`;
}

/** A group version this server serves; `custom` for custom resources. */
export interface ServedGroupVersion {
  group: string;
  version: string;
  custom: boolean;
}

/**
 * The local APIService of a served group version: no service, upstream's priorities, labelled as
 * kept by the server (`onstart` for built-ins, `true` for custom resources, as upstream). Pure.
 */
export function localApiService(gv: ServedGroupVersion, apiDomain: string): ApiService {
  const p = localPriority(gv.group, gv.version, apiDomain, gv.custom);
  return {
    apiVersion: `apiregistration.${apiDomain}/v1`,
    kind: 'APIService',
    metadata: { name: apiServiceName(gv.group, gv.version), labels: { [automanagedLabel(apiDomain)]: gv.custom ? 'true' : 'onstart' } },
    spec: { group: gv.group, version: gv.version, groupPriorityMinimum: p.group, versionPriority: p.version },
  };
}
