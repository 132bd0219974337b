import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  type JsonValue,
  type KubeObject,
  type PatchSchema,
  type PatchType,
} from '@cluster/apimachinery';

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

export const PATCH_TYPES: readonly string[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  APPLY_PATCH_TYPE,
];

/** Applies a JSON, merge or strategic merge patch to an object; returns the patched value. */
export function applyPatchOfType(type: PatchType, current: KubeObject, patch: JsonValue, patchMeta: PatchSchema | undefined): JsonValue {
  const original = current as unknown as JsonValue;
  switch (type) {
    case 'application/json-patch+json':
      return applyJsonPatch(original, patch);
    case 'application/merge-patch+json':
      return applyMergePatch(original, patch);
    case 'application/strategic-merge-patch+json':
      return applyStrategicMergePatch(original, patch, patchMeta);
  }
}
