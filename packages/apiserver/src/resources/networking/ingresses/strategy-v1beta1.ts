import type { FieldErrorList, KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy, StrategyContext, SubresourceStrategy } from '../../../registry/strategy.js';
import { defaultIngressV1beta1, ingressV1beta1ToV1, ingressV1ToV1beta1 } from './v1beta1-conversion.js';
import { replaceContents } from '../../replace-contents.js';


/**
 * The behaviour of Ingress at networking/v1beta1 (and extensions/v1beta1): v1beta1's defaults,
 * then v1's rules on the v1 form, as upstream validates its internal (v1-shaped) object; answers
 * and stored objects are converted by the registration.
 */
export function ingressV1beta1Strategy(v1: ResourceStrategy<KubeObject>, groupVersion: string, v1GroupVersion: string): ResourceStrategy<KubeObject> {
  const toV1 = (o: KubeObject) => ingressV1beta1ToV1(o, v1GroupVersion);
  const back = (o: KubeObject) => ingressV1ToV1beta1(o, groupVersion);
  const status = v1.subresources?.['status'];
  const statusV1beta1: SubresourceStrategy<KubeObject> | undefined = status && {
    merge: (requested, current) => back(status.merge(toV1(requested), toV1(current))),
    validateUpdate: (obj, old): FieldErrorList => status.validateUpdate(toV1(obj), toV1(old)),
  };
  return {
    ...v1,
    prepareForCreate(obj: KubeObject, ctx: StrategyContext) {
      defaultIngressV1beta1(obj);
      const converted = toV1(obj);
      v1.prepareForCreate(converted, ctx);
      replaceContents(obj, back(converted));
    },
    prepareForUpdate(obj: KubeObject, old: KubeObject, ctx: StrategyContext) {
      defaultIngressV1beta1(obj);
      const converted = toV1(obj);
      v1.prepareForUpdate(converted, toV1(old), ctx);
      replaceContents(obj, back(converted));
    },
    validate: (obj) => v1.validate(toV1(obj)),
    validateUpdate: (obj, old) => v1.validateUpdate(toV1(obj), toV1(old)),
    ...(v1.warnings ? { warnings: (obj: KubeObject, old?: KubeObject) => v1.warnings!(toV1(obj), old && toV1(old)) } : {}),
    ...(statusV1beta1 ? { subresources: { status: statusV1beta1 } } : {}),
    ...(v1.table ? { table: { columns: v1.table.columns, cells: (obj: KubeObject) => v1.table!.cells(toV1(obj)) } } : {}),
  };
}
