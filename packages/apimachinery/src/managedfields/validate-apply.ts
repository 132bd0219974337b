import { newBadRequest, newInvalid } from '../errors/status-error.js';
import type { JsonObject } from '../meta/types.js';
import { forbidden, invalid, required, tooLong, type FieldErrorList } from '../validation/field-error.js';
import { isObject } from './list-items.js';

/** Upstream's FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

const isPrint = (cp: number): boolean => {
  // Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
  if (cp === 0x20) return true;
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(String.fromCodePoint(cp));
};

/** Field errors of a fieldManager value (upstream ValidateFieldManager): at most 128 bytes, printable. */
export function validateFieldManager(fieldManager: string, path = 'fieldManager'): FieldErrorList {
  const errs: FieldErrorList = [];
  const bytes = new TextEncoder().encode(fieldManager);
  if (bytes.length > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let pos = 0;
  for (const ch of fieldManager) {
    const cp = ch.codePointAt(0) as number;
    if (!isPrint(cp)) {
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalid(path, fieldManager, `invalid character U+${hex} (at position ${pos})`));
    }
    pos += new TextEncoder().encode(ch).length;
  }
  return errs;
}

/** Options of a PATCH request relevant to field management. */
export interface PatchOptionsInput {
  /** True for `application/apply-patch+yaml`. */
  isApply: boolean;
  fieldManager: string | undefined;
  /** Whether the `force` query parameter was given (any value). */
  forceSet: boolean;
  /** Server `--api-domain`; the error names `PatchOptions.meta.<domain>`. */
  apiDomain: string;
}

/**
 * Validates PATCH options as upstream's ValidatePatchOptions (fieldManager and force parts): apply
 * needs a fieldManager; force is only for apply. Throws 422 Invalid
 * `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`.
 */
export function validatePatchOptions(opts: PatchOptionsInput): void {
  const errs: FieldErrorList = [];
  if (!opts.isApply) {
    if (opts.forceSet) errs.push(forbidden('force', 'may not be specified for non-apply patch'));
  } else if (!opts.fieldManager) {
    errs.push(required('fieldManager', 'is required for apply patch'));
  }
  errs.push(...validateFieldManager(opts.fieldManager ?? ''));
  if (errs.length > 0) throw newInvalid({ group: `meta.${opts.apiDomain}`, kind: 'PatchOptions' }, '', errs);
}

/**
 * Checks an apply request before merging (SPEC 4.8 rules 1 and 2): the options as
 * {@link validatePatchOptions}, then a body with `metadata.managedFields` (even empty) is 400
 * `metadata.managedFields must be nil`.
 */
export function validateApplyRequest(body: JsonObject, fieldManager: string | undefined, apiDomain: string, forceSet = false): void {
  validatePatchOptions({ isApply: true, fieldManager, forceSet, apiDomain });
  const meta = body['metadata'];
  // An applied configuration is a partial object: metadata may be left out, but when present it
  // is an object (upstream fails to build its typed patch otherwise, with a 500).
  if (meta !== undefined && meta !== null && !isObject(meta)) throw newBadRequest('metadata: must be an object in an applied configuration');
  if (isObject(meta) && meta['managedFields'] !== undefined && meta['managedFields'] !== null) {
    throw newBadRequest('metadata.managedFields must be nil');
  }
}
