import { isDeepStrictEqual } from 'node:util';
import { validateObjectMetaUpdate, type FieldErrorList, type KubeObject, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { SubresourceStrategy } from '../registry/strategy.js';
import { statusUpdate } from '../registry/status-update.js';
import { reshaped } from './core/pod-spec/go-shape.js';

interface WithStatus extends KubeObject {
  spec?: unknown;
  status?: unknown;
}

/**
 * The `status` subresource of a kind with spec and status (upstream's <kind>StatusStrategy): status
 * and metadata changes (labels, annotations, ...) are taken from the request, the spec stays as
 * stored; `validateStatus` adds the kind's status rules to the metadata update checks.
 */
export function statusSubresource<T extends WithStatus>(
  metaOptions: ObjectMetaOptions,
  validateStatus: (obj: T, old: T) => FieldErrorList = () => [],
): SubresourceStrategy<T> {
  return {
    merge: (requested, current) => reshaped(statusUpdate(requested, current)),
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions), ...validateStatus(obj, old)],
  };
}

/** metadata.generation counts spec changes: the old value, plus one when the spec differs. Mutates obj. */
export function bumpGenerationOnSpecChange(obj: WithStatus, old: WithStatus): void {
  const oldGen = old.metadata.generation ?? 1;
  obj.metadata.generation = isDeepStrictEqual(obj.spec, old.spec) ? oldGen : oldGen + 1;
}
