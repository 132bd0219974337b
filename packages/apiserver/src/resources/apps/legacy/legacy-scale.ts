import {
  integerProp,
  mapProp,
  objectSchema,
  objectTypeMeta,
  parseLabelSelector,
  refProp,
  stringProp,
  type KubeObject,
} from '@cluster/apimachinery';
import type { ResourceRegistration } from '../../../registry/registration.js';
import type { Definitions } from '../../../registry/resource-info.js';
import type { SubresourceStrategy } from '../../../registry/strategy.js';

// The Scale kinds of the removed workload versions (SPEC 9.4): extensions/v1beta1, apps/v1beta1
// and apps/v1beta2 serve `<workload>/scale` as their own Scale, whose status carries the selector
// twice, as upstream's conversions from autoscaling's Scale write it (k8s pkg/apis/apps/v1beta2/
// conversion.go, v1.24): `targetSelector` the selector string, `selector` the same as a label map
// when it is made of equalities only.

/** The group versions that have a Scale of their own, and their definitions' package names. */
const LEGACY_SCALE_PACKAGES: Record<string, string> = {
  'extensions/v1beta1': 'io.k8s.api.extensions.v1beta1',
  'apps/v1beta1': 'io.k8s.api.apps.v1beta1',
  'apps/v1beta2': 'io.k8s.api.apps.v1beta2',
};

/** `status.selector` as upstream's ParseToLabelSelector + MatchLabels: only `=`/`==` clauses make a map. */
export function selectorMap(selector: string): Record<string, string> | undefined {
  if (!selector) return undefined;
  try {
    const map: Record<string, string> = {};
    for (const r of parseLabelSelector(selector).requirements) {
      if ((r.operator !== '=' && r.operator !== '==') || r.values.length !== 1) return undefined;
      map[r.key] = r.values[0]!;
    }
    return Object.keys(map).length > 0 ? map : undefined;
  } catch {
    return undefined;
  }
}

/** autoscaling/v1's Scale view in the old Scale's form. Does not change `view`. */
export function toLegacyScale(view: KubeObject): KubeObject {
  const status = (view['status'] ?? {}) as { replicas?: number; selector?: string };
  const selector = status.selector ?? '';
  const map = selectorMap(selector);
  return {
    ...view,
    status: { replicas: status.replicas ?? 0, ...(map ? { selector: map } : {}), ...(selector ? { targetSelector: selector } : {}) },
  };
}

/**
 * The registration with its `scale` subresource serving `group/version`'s own Scale (apps/v1beta1
 * deployments/scale answers apps/v1beta1 Scale); unchanged when the version has no Scale kind or
 * the resource no scale view.
 */
export function withLegacyScale(reg: ResourceRegistration, group: string, version: string): ResourceRegistration {
  const pkg = LEGACY_SCALE_PACKAGES[`${group}/${version}`];
  const scale = reg.strategy.subresources?.['scale'] as SubresourceStrategy<KubeObject> | undefined;
  const view = scale?.view;
  if (!pkg || !scale || !view) return reg;
  const legacy: SubresourceStrategy<KubeObject> = {
    ...scale,
    view: { toView: (parent) => toLegacyScale(view.toView(parent)), fromView: view.fromView },
  };
  return {
    ...reg,
    info: {
      ...reg.info,
      subresources: reg.info.subresources?.map((s) => (s.name === 'scale' ? { ...s, group, version, kind: 'Scale', definitionName: `${pkg}.Scale` } : s)),
    },
    strategy: { ...reg.strategy, subresources: { ...reg.strategy.subresources, scale: legacy } },
  };
}

/** OpenAPI definitions of the three old Scale kinds. */
export function legacyScaleDefinitions(): Definitions {
  const out: Definitions = {};
  for (const [gv, pkg] of Object.entries(LEGACY_SCALE_PACKAGES)) {
    const [group, version] = gv.split('/') as [string, string];
    out[`${pkg}.Scale`] = objectSchema(
      'The replica count of a scalable resource (deprecated with its group version).',
      {
        ...objectTypeMeta(),
        spec: refProp(`${pkg}.ScaleSpec`, 'The desired replicas.'),
        status: refProp(`${pkg}.ScaleStatus`, 'The current replicas, read only.'),
      },
      { gvk: [{ group, version, kind: 'Scale' }] },
    );
    out[`${pkg}.ScaleSpec`] = objectSchema('The desired replicas.', { replicas: integerProp('Desired number of instances.', 'int32') });
    out[`${pkg}.ScaleStatus`] = objectSchema(
      'The current replicas and the label selector of the pods counted.',
      {
        replicas: integerProp('Actual number of observed instances.', 'int32'),
        selector: mapProp('The selector as a label map, when it is made of equalities only.', { type: 'string' }),
        targetSelector: stringProp('The selector in label-query form.'),
      },
      { required: ['replicas'] },
    );
  }
  return out;
}
