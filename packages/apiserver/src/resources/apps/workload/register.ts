import type { ResourceRegistration } from '../../../registry/registration.js';
import type { ResourceInfo, SubresourceInfo } from '../../../registry/resource-info.js';
import type { ResourceStrategy } from '../../../registry/strategy.js';

/**
 * The apps group keeps upstream's bare name `apps` (it never carried the product domain):
 * stock clients address it by that fixed path (kubectl create deployment, rollout, scale).
 */
export const APPS_GROUP = 'apps';
/** Likewise `autoscaling`, the group of the Scale kind the scale subresources serve. */
export const AUTOSCALING_GROUP = 'autoscaling';

export const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

/** One replicated kind's registration, with `status` and optionally `scale` subresources. */
export function workloadRegistration(
  base: Omit<ResourceInfo, 'verbs' | 'namespaced' | 'subresources' | 'categories'>,
  strategy: ResourceStrategy<never>,
  scalable: boolean,
): ResourceRegistration {
  const subresources: SubresourceInfo[] = [];
  if (scalable) {
    subresources.push({ name: 'scale', group: AUTOSCALING_GROUP, version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'], definitionName: SCALE_DEFINITION });
  }
  subresources.push({ name: 'status', kind: base.kind, verbs: ['get', 'patch', 'update'], definitionName: base.definitionName });
  return {
    info: {
      ...base,
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      categories: ['all'],
      subresources,
    },
    strategy: strategy as ResourceRegistration['strategy'],
  };
}
