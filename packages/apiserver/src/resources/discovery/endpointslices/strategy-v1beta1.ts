import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { convertedStrategy } from '../../converted-strategy.js';
import { defaultSlice, endpointSliceStrategy, type EndpointSlice } from './strategy.js';
import { sliceV1beta1ToV1, sliceV1ToV1beta1 } from './v1beta1-conversion.js';

/**
 * EndpointSlice at discovery/v1beta1: v1's defaults and rules on the v1 form, except that its
 * `topology` may write deprecatedTopology (upstream's dropTopologyOnV1 skips v1beta1 requests).
 */
export function endpointSliceV1beta1Strategy(apiDomain: string): ResourceStrategy<KubeObject> {
  const keepTopology: ResourceStrategy<EndpointSlice> = { ...endpointSliceStrategy, prepareForCreate: defaultSlice, prepareForUpdate: defaultSlice };
  return convertedStrategy(keepTopology as ResourceStrategy<KubeObject>, {
    toCurrent: (o) => sliceV1beta1ToV1(o, `discovery.${apiDomain}/v1`),
    fromCurrent: (o) => sliceV1ToV1beta1(o, `discovery.${apiDomain}/v1beta1`),
  });
}
