export { parsePatchJson, type PatchType } from './parse.js';
export { applyMergePatch } from './merge-patch.js';
export {
  applyJsonPatch,
  MAX_JSON_PATCH_COPY_BYTES,
  MAX_JSON_PATCH_OPERATIONS,
  type JsonPatchOptions,
} from './json-patch.js';
export {
  EMPTY_PATCH_SCHEMA,
  patchMetaFromOpenApi,
  type FieldPatchMeta,
  type OpenApiSchema,
  type PatchSchema,
} from './patch-meta.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
