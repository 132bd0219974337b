import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceRegistration } from '../registry/registration.js';
import type { Definitions, SchemaObject } from '../registry/resource-info.js';
import { convertedStrategy } from './converted-strategy.js';
import { legacyWorkloadConversion } from './apps/legacy/legacy-versions.js';
import { withLegacyScale } from './apps/legacy/legacy-scale.js';
import { csrV1beta1Strategy } from './certificates/certificatesigningrequests/strategy-v1beta1.js';
import { pdbV1beta1ToV1, pdbV1ToV1beta1 } from './policy/poddisruptionbudgets/v1beta1-conversion.js';
import { ingressV1beta1ToV1, ingressV1ToV1beta1 } from './networking/ingresses/v1beta1-conversion.js';
import { ingressV1beta1Strategy } from './networking/ingresses/strategy-v1beta1.js';
import { ingressStrategy } from './networking/ingresses/strategy.js';
import { ingressClassStrategy } from './networking/ingressclasses/strategy.js';
import { sliceV1beta1ToV1, sliceV1ToV1beta1 } from './discovery/endpointslices/v1beta1-conversion.js';
import { endpointSliceV1beta1Strategy } from './discovery/endpointslices/strategy-v1beta1.js';
import { webhookConfigurationStrategy } from './admissionregistration/strategy.js';
import { crdV1beta1ToV1, crdV1ToV1beta1 } from './apiextensions/customresourcedefinitions/v1beta1-conversion.js';
import { crdV1beta1Strategy } from './apiextensions/customresourcedefinitions/strategy-v1beta1.js';

/**
 * A removed version (SPEC 9.4) of a served kind, servable again through --runtime-config: the
 * group prefix (without the API domain), the old version, the releases it was deprecated in and
 * removed in, and how a request body and an answer convert when the old schema differs (the
 * access reviews' `spec.group` is v1's `spec.groups`).
 */
interface RemovedVersion {
  prefix: string;
  /** Set for upstream's groups without the API domain (`batch`, `policy`, `autoscaling`). */
  bare?: boolean;
  version: string;
  deprecatedRelease: string;
  removedRelease: string;
  resources: readonly string[];
  convertIn?: (body: KubeObject) => KubeObject;
  convertOut?: (answer: KubeObject) => KubeObject;
  /** The old version's own behaviour (defaults, validation), when it differs from the current one. */
  strategy?: (apiDomain: string, resource: string, current: ResourceRegistration['strategy']) => ResourceRegistration['strategy'];
  /**
   * Conversion of stored objects when the old version reads some values differently (policy/v1beta1
   * PodDisruptionBudget's empty selector): old form -> current (stored) form and back. Neither may
   * change its argument.
   */
  stored?: { toCurrent(obj: KubeObject, apiVersion: string): KubeObject; fromCurrent(obj: KubeObject, apiVersion: string): KubeObject };
  /**
   * Group prefix of the current version when the kind moved groups (extensions/v1beta1 Ingress is
   * networking's); needs `stored`, since objects are kept under the current group.
   */
  currentPrefix?: string;
  /** Set when the current group is one of upstream's bare ones (extensions/v1beta1 workloads are `apps`). */
  currentBare?: boolean;
}

/** authorization/v1beta1's SubjectAccessReviewSpec names the groups `group`; v1 `groups`. */
function renameField(obj: KubeObject, from: string, to: string): KubeObject {
  const spec = (obj as { spec?: Record<string, unknown> }).spec;
  if (!spec || !(from in spec)) return obj;
  const { [from]: value, ...rest } = spec;
  return { ...obj, spec: { ...rest, [to]: value } } as KubeObject;
}

const REMOVED: readonly RemovedVersion[] = [
  { prefix: 'rbac.authorization', version: 'v1beta1', deprecatedRelease: '1.17', removedRelease: '1.22', resources: ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'] },
  { prefix: 'coordination', version: 'v1beta1', deprecatedRelease: '1.19', removedRelease: '1.22', resources: ['leases'] },
  {
    prefix: 'certificates',
    version: 'v1beta1',
    deprecatedRelease: '1.19',
    removedRelease: '1.22',
    resources: ['certificatesigningrequests'],
    strategy: (apiDomain) => csrV1beta1Strategy(apiDomain) as ResourceRegistration['strategy'],
  },
  {
    prefix: 'admissionregistration',
    version: 'v1beta1',
    deprecatedRelease: '1.16',
    removedRelease: '1.22',
    resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'],
    strategy: (_apiDomain, resource) => webhookConfigurationStrategy(resource === 'mutatingwebhookconfigurations', 'v1beta1') as unknown as ResourceRegistration['strategy'],
  },
  {
    prefix: 'apiextensions',
    version: 'v1beta1',
    deprecatedRelease: '1.16',
    removedRelease: '1.22',
    resources: ['customresourcedefinitions'],
    strategy: (apiDomain, _resource, current) => crdV1beta1Strategy(current, `apiextensions.${apiDomain}/v1beta1`, `apiextensions.${apiDomain}/v1`),
    stored: { toCurrent: crdV1beta1ToV1, fromCurrent: crdV1ToV1beta1 },
  },
  { prefix: 'authentication', version: 'v1beta1', deprecatedRelease: '1.19', removedRelease: '1.22', resources: ['tokenreviews'] },
  { prefix: 'apiregistration', version: 'v1beta1', deprecatedRelease: '1.19', removedRelease: '1.22', resources: ['apiservices'] },
  { prefix: 'events', version: 'v1beta1', deprecatedRelease: '1.22', removedRelease: '1.25', resources: ['events'] },
  // Kinds whose old version has the current one's schema and defaults (issue 31).
  { prefix: 'batch', bare: true, version: 'v1beta1', deprecatedRelease: '1.21', removedRelease: '1.25', resources: ['cronjobs'] },
  {
    prefix: 'apps',
    bare: true,
    version: 'v1beta1',
    deprecatedRelease: '1.8',
    removedRelease: '1.16',
    resources: ['deployments', 'statefulsets', 'controllerrevisions'],
    strategy: (_apiDomain, resource, current) => convertedStrategy(current, legacyWorkloadConversion('apps', resource)),
    stored: { toCurrent: (obj, apiVersion) => ({ ...obj, apiVersion }), fromCurrent: (obj, apiVersion) => ({ ...obj, apiVersion }) },
  },
  {
    prefix: 'extensions',
    bare: true,
    currentPrefix: 'apps',
    currentBare: true,
    version: 'v1beta1',
    deprecatedRelease: '1.8',
    removedRelease: '1.16',
    resources: ['deployments', 'daemonsets', 'replicasets'],
    strategy: (_apiDomain, resource, current) => convertedStrategy(current, legacyWorkloadConversion('extensions', resource)),
    stored: { toCurrent: (obj, apiVersion) => ({ ...obj, apiVersion }), fromCurrent: (obj, apiVersion) => ({ ...obj, apiVersion }) },
  },
  // apps/v1beta2 has apps/v1's schema and defaults (selector required and immutable already).
  { prefix: 'apps', bare: true, version: 'v1beta2', deprecatedRelease: '1.9', removedRelease: '1.16', resources: ['deployments', 'replicasets', 'statefulsets', 'daemonsets', 'controllerrevisions'] },
  {
    prefix: 'discovery',
    version: 'v1beta1',
    deprecatedRelease: '1.21',
    removedRelease: '1.25',
    resources: ['endpointslices'],
    strategy: (apiDomain) => endpointSliceV1beta1Strategy(apiDomain) as ResourceRegistration['strategy'],
    stored: { toCurrent: sliceV1beta1ToV1, fromCurrent: sliceV1ToV1beta1 },
  },
  {
    prefix: 'extensions',
    bare: true,
    currentPrefix: 'networking',
    version: 'v1beta1',
    deprecatedRelease: '1.14',
    removedRelease: '1.22',
    resources: ['ingresses'],
    strategy: (apiDomain) => ingressV1beta1Strategy(ingressStrategy as unknown as ResourceRegistration['strategy'], 'extensions/v1beta1', `networking.${apiDomain}/v1`) as ResourceRegistration['strategy'],
    stored: { toCurrent: ingressV1beta1ToV1, fromCurrent: ingressV1ToV1beta1 },
  },
  {
    prefix: 'extensions',
    bare: true,
    currentPrefix: 'networking',
    version: 'v1beta1',
    deprecatedRelease: '1.9',
    removedRelease: '1.16',
    resources: ['networkpolicies'],
    // The same schema in another group: only the apiVersion changes.
    stored: { toCurrent: (obj, apiVersion) => ({ ...obj, apiVersion }), fromCurrent: (obj, apiVersion) => ({ ...obj, apiVersion }) },
  },
  {
    prefix: 'networking',
    version: 'v1beta1',
    deprecatedRelease: '1.19',
    removedRelease: '1.22',
    resources: ['ingresses', 'ingressclasses'],
    strategy: (apiDomain, resource) =>
      resource === 'ingresses'
        ? (ingressV1beta1Strategy(ingressStrategy as unknown as ResourceRegistration['strategy'], `networking.${apiDomain}/v1beta1`, `networking.${apiDomain}/v1`) as ResourceRegistration['strategy'])
        : (ingressClassStrategy as ResourceRegistration['strategy']),
    stored: { toCurrent: ingressV1beta1ToV1, fromCurrent: ingressV1ToV1beta1 },
  },
  {
    prefix: 'policy',
    bare: true,
    version: 'v1beta1',
    deprecatedRelease: '1.21',
    removedRelease: '1.25',
    resources: ['poddisruptionbudgets'],
    stored: { toCurrent: pdbV1beta1ToV1, fromCurrent: pdbV1ToV1beta1 },
  },
  { prefix: 'node', version: 'v1beta1', deprecatedRelease: '1.22', removedRelease: '1.25', resources: ['runtimeclasses'] },
  { prefix: 'scheduling', version: 'v1beta1', deprecatedRelease: '1.14', removedRelease: '1.22', resources: ['priorityclasses'] },
  { prefix: 'storage', version: 'v1beta1', deprecatedRelease: '1.19', removedRelease: '1.22', resources: ['storageclasses', 'volumeattachments', 'csidrivers'] },
  { prefix: 'storage', version: 'v1beta1', deprecatedRelease: '1.17', removedRelease: '1.22', resources: ['csinodes'] },
  {
    prefix: 'authorization',
    version: 'v1beta1',
    deprecatedRelease: '1.19',
    removedRelease: '1.22',
    resources: ['subjectaccessreviews', 'selfsubjectaccessreviews', 'localsubjectaccessreviews', 'selfsubjectrulesreviews'],
    convertIn: (body) => renameField(body, 'group', 'groups'),
    convertOut: (answer) => renameField(answer, 'groups', 'group'),
  },
];

/** `io.k8s.api.networking.v1beta1.Ingress` -> `io.k8s.api.extensions.v1beta1.Ingress` for a kind that moved groups. */
const movedDefinitionName = (name: string, rv: RemovedVersion) => (rv.currentPrefix ? name.replace(`.${rv.currentPrefix}.`, `.${rv.prefix}.`) : name);

/** `io.k8s.api.rbac.v1.Role` -> `io.k8s.api.rbac.v1beta1.Role`. */
const oldDefinitionName = (name: string, version: string) => name.replace(/\.v1\.([A-Za-z]+)$/, `.${version}.$1`);

/**
 * The registrations of the removed versions of `current`'s kinds: same strategy and storage
 * (objects are stored in the current version), old version in discovery and URLs, the
 * deprecation marks, and the body conversions of kinds whose schema changed. Off unless
 * --runtime-config enables them.
 */
export function removedVersionRegistrations(apiDomain: string, current: readonly ResourceRegistration[]): ResourceRegistration[] {
  const out: ResourceRegistration[] = [];
  for (const rv of REMOVED) {
    const group = rv.bare ? rv.prefix : `${rv.prefix}.${apiDomain}`;
    const currentGroup = rv.currentPrefix ? (rv.currentBare ? rv.currentPrefix : `${rv.currentPrefix}.${apiDomain}`) : group;
    for (const reg of current) {
      if (reg.info.group !== currentGroup || reg.info.version !== 'v1' || !rv.resources.includes(reg.info.resource)) continue;
      const definitionName = movedDefinitionName(oldDefinitionName(reg.info.definitionName, rv.version), rv);
      const info = {
        ...reg.info,
        group,
        version: rv.version,
        storageVersion: reg.virtual ? undefined : 'v1',
        definitionName,
        deprecated: { deprecatedRelease: rv.deprecatedRelease, removedRelease: rv.removedRelease, replacementApiVersion: `${currentGroup}/v1` },
        // Subresources of other kinds (serviceaccounts/token) stay with their own versions; the
        // kind's own (status) is the old version's.
        subresources: reg.info.subresources?.map((s) => (s.definitionName === reg.info.definitionName ? { ...s, definitionName } : s)),
      };
      const virtual = reg.virtual;
      const stored = rv.stored;
      const registration: ResourceRegistration = {
        ...reg,
        ...(rv.strategy ? { strategy: rv.strategy(apiDomain, reg.info.resource, reg.strategy) } : {}),
        ...(stored
          ? {
              storedAs: {
                group: currentGroup,
                resource: reg.info.resource,
                toStorage: (obj: KubeObject) => stored.toCurrent(obj, `${currentGroup}/v1`),
                fromStorage: (obj: KubeObject) => stored.fromCurrent(obj, `${group}/${rv.version}`),
              },
            }
          : {}),
        info,
        virtual: virtual && {
          async create(req, body) {
            const answer = await virtual.create(req, rv.convertIn ? rv.convertIn(body) : body);
            return rv.convertOut ? rv.convertOut(answer) : answer;
          },
        },
      };
      // The old workload versions' scale subresources answer their own Scale kinds.
      out.push(withLegacyScale(registration, group, rv.version));
    }
  }
  return out;
}

/**
 * OpenAPI definitions of the removed versions: each kind's current definition under its old
 * name with the old group-version-kind, and, for the access reviews, `spec.group` in place of
 * `spec.groups`. Nested definitions are shared with the current version (same schema).
 */
export function removedVersionDefinitions(apiDomain: string, registrations: readonly ResourceRegistration[], defs: Definitions): Definitions {
  const out: Definitions = {};
  for (const reg of registrations) {
    if (!reg.info.deprecated) continue;
    // Old versions with their own schema (networking/v1beta1 Ingress) are defined already.
    if (defs[reg.info.definitionName]) continue;
    const currentName = reg.info.definitionName.replace(/\.v1beta\d+\.([A-Za-z]+)$/, '.v1.$1');
    const source = defs[currentName];
    if (!source) continue;
    const gvk = (kind: string) => [{ group: reg.info.group, kind, version: reg.info.version }];
    out[reg.info.definitionName] = { ...(source as SchemaObject), 'x-kubernetes-group-version-kind': gvk(reg.info.kind) };
    const list = defs[`${currentName}List`] as SchemaObject | undefined;
    if (list) {
      const items = { ...((list['properties'] as Record<string, SchemaObject>)['items'] ?? {}) };
      const itemRefs = { ...((items['items'] as SchemaObject | undefined) ?? {}), $ref: `#/definitions/${reg.info.definitionName}` };
      out[`${reg.info.definitionName}List`] = {
        ...list,
        properties: { ...(list['properties'] as Record<string, SchemaObject>), items: { ...items, items: itemRefs } },
        'x-kubernetes-group-version-kind': gvk(reg.info.listKind),
      };
    }
    if (reg.info.group === `authorization.${apiDomain}`) {
      const specName = `io.k8s.api.authorization.v1beta1.${reg.info.kind === 'SelfSubjectRulesReview' ? 'SelfSubjectRulesReviewSpec' : reg.info.kind === 'SelfSubjectAccessReview' ? 'SelfSubjectAccessReviewSpec' : 'SubjectAccessReviewSpec'}`;
      const v1Spec = defs[specName.replace('.v1beta1.', '.v1.')] as SchemaObject | undefined;
      if (v1Spec) {
        const props = { ...((v1Spec['properties'] as Record<string, unknown>) ?? {}) };
        if ('groups' in props) {
          props['group'] = props['groups'];
          delete props['groups'];
        }
        out[specName] = { ...v1Spec, properties: props } as SchemaObject;
        const kindDef = out[reg.info.definitionName] as SchemaObject;
        const kindProps = { ...((kindDef['properties'] as Record<string, SchemaObject>) ?? {}) };
        if (kindProps['spec']) kindProps['spec'] = { ...kindProps['spec'], $ref: `#/definitions/${specName}` };
        out[reg.info.definitionName] = { ...kindDef, properties: kindProps } as SchemaObject;
      }
    }
  }
  return out;
}
