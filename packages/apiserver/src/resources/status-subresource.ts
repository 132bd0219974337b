import { isDeepStrictEqual } from 'node:util';
import { validateObjectMetaUpdate, type FieldErrorList, type KubeObject, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { SubresourceStrategy } from '../registry/strategy.js';
import { statusUpdate } from '../registry/status-update.js';
import { reshapeInPlace, reshaped } from './core/pod-spec/go-shape.js';

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

/** What a kind runs before create and update (the strategy's prepare hooks). */
export interface GenerationPrepare<T> {
  prepareForCreate(obj: T): void;
  prepareForUpdate(obj: T, old: T): void;
}

/**
 * prepareForCreate and prepareForUpdate of a kind whose metadata.generation counts spec changes
 * (upstream's PrepareForCreate/PrepareForUpdate of such kinds). Both run `defaults` (its `old` is
 * undefined on create) and leave the object in Go's JSON shape. On create, generation is 1 and,
 * when `hasStatus`, the status is reset to `{}`; on update the stored status is kept (clients
 * change it through the status subresource) and generation grows by one when the spec changed.
 * The hooks mutate the object.
 */
export function generationPrepare<T extends WithStatus>(defaults: (obj: T, old?: T) => void, hasStatus = true): GenerationPrepare<T> {
  return {
    prepareForCreate(obj) {
      defaults(obj);
      if (hasStatus) obj.status = {};
      obj.metadata.generation = 1;
      reshapeInPlace(obj);
    },
    prepareForUpdate(obj, old) {
      defaults(obj, old);
      if (hasStatus) obj.status = old.status ?? {};
      reshapeInPlace(obj);
      bumpGenerationOnSpecChange(obj, old);
    },
  };
}

/** The stored status, unchanged by an update of the main resource (clients change it through `status`). Mutates obj. */
export function keepStoredStatus(obj: WithStatus, old: WithStatus): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = old.status;
}

/**
 * prepareForCreate and prepareForUpdate of a kind with a status subresource and no generation
 * (PersistentVolume, PersistentVolumeClaim, VolumeAttachment). Create starts from an empty status
 * (`{}`, which `defaults` may fill, as upstream's phase Pending) or, with `initialStatus` 'none',
 * from none; update runs `defaults` and keeps the stored status. Both leave the object in Go's
 * JSON shape. The hooks mutate the object.
 */
export function statusPrepare<T extends WithStatus>(defaults: (obj: T) => void, initialStatus: 'empty' | 'none' = 'empty'): GenerationPrepare<T> {
  return {
    prepareForCreate(obj) {
      if (initialStatus === 'empty') obj.status = {};
      else delete obj.status;
      defaults(obj);
      reshapeInPlace(obj);
    },
    prepareForUpdate(obj, old) {
      defaults(obj);
      keepStoredStatus(obj, old);
      reshapeInPlace(obj);
    },
  };
}
