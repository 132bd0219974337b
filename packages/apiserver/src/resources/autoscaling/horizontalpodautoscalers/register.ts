import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceRegistration } from '../../../registry/registration.js';
import type { Verb } from '../../../registry/resource-info.js';
import { AUTOSCALING_GROUP } from '../../apps/workload/register.js';
import { hpaV1ToV2, hpaV2ToV1 } from './conversion.js';
import { hpaV1Strategy, hpaV2Strategy } from './strategy.js';
import { defaultHpaV2beta1, hpaV2beta1ToV2, hpaV2ToV2beta1 } from './conversion-v2beta1.js';
import { convertedStrategy } from '../../converted-strategy.js';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import type { HPAV1, HPAV2 } from './types.js';

const VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function info(version: string) {
  const definitionName = `io.k8s.api.autoscaling.${version}.HorizontalPodAutoscaler`;
  return {
    group: AUTOSCALING_GROUP,
    version,
    resource: 'horizontalpodautoscalers',
    singularName: 'horizontalpodautoscaler',
    kind: 'HorizontalPodAutoscaler',
    listKind: 'HorizontalPodAutoscalerList',
    namespaced: true,
    verbs: VERBS,
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: [{ name: 'status', kind: 'HorizontalPodAutoscaler', verbs: ['get', 'patch', 'update'] as const, definitionName }],
    definitionName,
  };
}

/** autoscaling/v2 horizontalpodautoscalers (hpa, category all) with `status`: the stored version. */
export const horizontalPodAutoscalersV2: ResourceRegistration = { info: info('v2'), strategy: hpaV2Strategy };

/**
 * autoscaling/v2beta2: v2's schema and defaults over the same stored objects, served by default
 * with upstream's deprecation (1.23; removed in 1.26) as SPEC 9.4 lists it.
 */
export const horizontalPodAutoscalersV2beta2: ResourceRegistration = {
  info: {
    ...info('v2beta2'),
    storageVersion: 'v2',
    servedByDefault: true,
    deprecated: { deprecatedRelease: '1.23', removedRelease: '1.26', replacementApiVersion: `${AUTOSCALING_GROUP}/v2` },
  },
  strategy: hpaV2Strategy,
};

/**
 * autoscaling/v1 horizontalpodautoscalers over the same stored v2 objects: targetCPUUtilizationPercentage
 * is v2's CPU utilization metric; what v1 cannot hold travels in annotations, as upstream's conversion does.
 */
export const horizontalPodAutoscalersV1: ResourceRegistration = {
  info: { ...info('v1'), storageVersion: 'v2' },
  strategy: hpaV1Strategy,
  storedAs: {
    group: AUTOSCALING_GROUP,
    resource: 'horizontalpodautoscalers',
    toStorage: (obj: KubeObject) => hpaV1ToV2(obj as HPAV1, `${AUTOSCALING_GROUP}/v2`),
    fromStorage: (obj: KubeObject) => hpaV2ToV1(obj as HPAV2, `${AUTOSCALING_GROUP}/v1`),
  },
};

/**
 * autoscaling/v2beta1 (removed in 1.25; SPEC 9.4), behind --runtime-config, over the same stored
 * v2 objects: its own metric shapes, v2's behavior in an annotation, as upstream converts.
 */
export const horizontalPodAutoscalersV2beta1: ResourceRegistration = {
  info: {
    ...info('v2beta1'),
    storageVersion: 'v2',
    deprecated: { deprecatedRelease: '1.22', removedRelease: '1.25', replacementApiVersion: `${AUTOSCALING_GROUP}/v2` },
  },
  strategy: convertedStrategy(hpaV2Strategy as unknown as ResourceStrategy<KubeObject>, {
    toCurrent: (o) => hpaV2beta1ToV2(o, `${AUTOSCALING_GROUP}/v2`),
    fromCurrent: (o) => hpaV2ToV2beta1(o, `${AUTOSCALING_GROUP}/v2beta1`),
    defaults: defaultHpaV2beta1,
  }),
  storedAs: {
    group: AUTOSCALING_GROUP,
    resource: 'horizontalpodautoscalers',
    toStorage: (obj: KubeObject) => hpaV2beta1ToV2(obj, `${AUTOSCALING_GROUP}/v2`),
    fromStorage: (obj: KubeObject) => hpaV2ToV2beta1(obj, `${AUTOSCALING_GROUP}/v2beta1`),
  },
};
