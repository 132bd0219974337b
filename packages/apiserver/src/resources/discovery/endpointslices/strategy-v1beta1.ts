import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { defaultSlice, endpointSliceStrategy, type EndpointSlice } from './strategy.js';
import { sliceV1beta1ToV1, sliceV1ToV1beta1 } from './v1beta1-conversion.js';
import { replaceContents } from '../../replace-contents.js';


/**
 * EndpointSlice at discovery/v1beta1: v1's defaults and rules on the v1 form, except that its
 * `topology` may write deprecatedTopology (upstream's dropTopologyOnV1 skips v1beta1 requests).
 */
export function endpointSliceV1beta1Strategy(apiDomain: string): ResourceStrategy<KubeObject> {
  const v1 = `discovery.${apiDomain}/v1`;
  const v1beta1 = `discovery.${apiDomain}/v1beta1`;
  const toV1 = (o: KubeObject) => sliceV1beta1ToV1(o, v1) as EndpointSlice;
  const prepare = (obj: KubeObject) => {
    const converted = toV1(obj);
    defaultSlice(converted);
    replaceContents(obj, sliceV1ToV1beta1(converted, v1beta1));
  };
  return {
    ...(endpointSliceStrategy as ResourceStrategy<EndpointSlice>),
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: (obj) => endpointSliceStrategy.validate(toV1(obj)),
    validateUpdate: (obj, old) => endpointSliceStrategy.validateUpdate(toV1(obj), toV1(old)),
    table: { columns: endpointSliceStrategy.table.columns, cells: (obj) => endpointSliceStrategy.table.cells(toV1(obj)) },
  } as ResourceStrategy<KubeObject>;
}
