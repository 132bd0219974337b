import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { convertedStrategy } from '../../converted-strategy.js';
import { defaultIngressV1beta1, ingressV1beta1ToV1, ingressV1ToV1beta1 } from './v1beta1-conversion.js';

/**
 * The behaviour of Ingress at networking/v1beta1 (and extensions/v1beta1): v1beta1's defaults,
 * then v1's rules on the v1 form, as upstream validates its internal (v1-shaped) object; answers
 * and stored objects are converted by the registration.
 */
export function ingressV1beta1Strategy(v1: ResourceStrategy<KubeObject>, groupVersion: string, v1GroupVersion: string): ResourceStrategy<KubeObject> {
  return convertedStrategy(v1, {
    toCurrent: (o) => ingressV1beta1ToV1(o, v1GroupVersion),
    fromCurrent: (o) => ingressV1ToV1beta1(o, groupVersion),
    defaults: defaultIngressV1beta1,
  });
}
