import { newInvalid, type FieldErrorList, type KubeObject } from '@cluster/apimachinery';
import type { ResourceStrategy, StrategyContext, SubresourceStrategy } from '../registry/strategy.js';
import { replaceContents } from './replace-contents.js';

/** How an old version's objects convert to the current version's form and back. */
export interface VersionConversion {
  /** The object in the current form. Must not change `obj`. */
  toCurrent(obj: KubeObject): KubeObject;
  /** The object in the old form. Must not change `obj`. */
  fromCurrent(obj: KubeObject): KubeObject;
  /** The old version's own defaults, applied before conversion. Mutates `obj`. */
  defaults?(obj: KubeObject): void;
  /** Checks of what only the old form holds, made on the request before conversion drops it. */
  validate?(obj: KubeObject): FieldErrorList;
}

/**
 * 422 Invalid for what the old form asks that the current one cannot hold (conversion would drop
 * it silently otherwise), named as upstream names its kinds: `Deployment.extensions "web"`.
 * @throws StatusError
 */
function refuseOldOnly(obj: KubeObject, c: VersionConversion): void {
  const errs = c.validate?.(obj) ?? [];
  if (errs.length === 0) return;
  const apiVersion = obj.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  throw newInvalid({ group, kind: obj.kind ?? '' }, obj.metadata.name ?? '', errs);
}

/**
 * The behaviour of an old version whose schema differs from the current one (networking/v1beta1
 * Ingress, discovery/v1beta1 EndpointSlice, autoscaling/v2beta1 HPA): its defaults, then the current
 * version's preparation and rules on the converted object, as upstream validates its internal form.
 * Objects are converted in place so the registry sees the old form throughout.
 */
export function convertedStrategy(current: ResourceStrategy<KubeObject>, c: VersionConversion): ResourceStrategy<KubeObject> {
  const status = current.subresources?.['status'];
  const statusOld: SubresourceStrategy<KubeObject> | undefined = status && {
    merge: (requested, stored) => c.fromCurrent(status.merge(c.toCurrent(requested), c.toCurrent(stored))),
    validateUpdate: (obj, old): FieldErrorList => status.validateUpdate(c.toCurrent(obj), c.toCurrent(old)),
  };
  return {
    ...current,
    prepareForCreate(obj: KubeObject, ctx: StrategyContext) {
      refuseOldOnly(obj, c);
      c.defaults?.(obj);
      const converted = c.toCurrent(obj);
      current.prepareForCreate(converted, ctx);
      replaceContents(obj, c.fromCurrent(converted));
    },
    prepareForUpdate(obj: KubeObject, old: KubeObject, ctx: StrategyContext) {
      refuseOldOnly(obj, c);
      c.defaults?.(obj);
      const converted = c.toCurrent(obj);
      current.prepareForUpdate(converted, c.toCurrent(old), ctx);
      replaceContents(obj, c.fromCurrent(converted));
    },
    validate: (obj) => current.validate(c.toCurrent(obj)),
    validateUpdate: (obj, old) => current.validateUpdate(c.toCurrent(obj), c.toCurrent(old)),
    ...(current.warnings ? { warnings: (obj: KubeObject, old?: KubeObject) => current.warnings!(c.toCurrent(obj), old && c.toCurrent(old)) } : {}),
    ...(statusOld ? { subresources: { ...current.subresources, status: statusOld } } : {}),
    ...(current.table ? { table: { columns: current.table.columns, cells: (obj: KubeObject) => current.table!.cells(c.toCurrent(obj)) } } : {}),
  };
}
