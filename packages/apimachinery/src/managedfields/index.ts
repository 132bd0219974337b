export { FieldSet } from './field-set.js';
export {
  comparePathElements,
  pathString,
  serializePathElement,
  deserializePathElement,
  type FieldPath,
  type PathElement,
} from './path-element.js';
export { toFieldsV1, fieldsV1ToSet, FieldsV1Error } from './fields-v1.js';
export { structuredTypeFromOpenApi, type StructuredType } from './structured-type.js';
export { fieldSetFromObject } from './to-field-set.js';
export { compareObjects, type Comparison } from './compare.js';
export { mergeObjects } from './merge.js';
export { removeItems } from './remove.js';
export { TypedValueError } from './list-items.js';
export {
  decodeManagedFields,
  encodeManagedFields,
  formatTime,
  isResetManagedFields,
  managerIdentifier,
  ManagedFieldsDecodeError,
  type Managed,
  type VersionedSet,
} from './managers.js';
export { newConflictError, printManager } from './conflict.js';
export { applyConfig, updateOwnership, ConflictsError, type Conflict } from './updater.js';
export { applyPatch, type ApplyPatchInput, type ApplyPatchResult } from './apply-patch.js';
export {
  updateManagedFields,
  setManagedFields,
  BEFORE_FIRST_APPLY_MANAGER,
  type FieldManagerScope,
  type UpdateManagedFieldsInput,
} from './field-manager.js';
export { LAST_APPLIED_ANNOTATION } from './last-applied.js';
export { ANCIENT_CHANGES_MANAGER, DEFAULT_MAX_UPDATE_MANAGERS } from './cap-managers.js';
export {
  validateApplyRequest,
  validatePatchOptions,
  type PatchOptionsInput,
} from './validate-apply.js';
