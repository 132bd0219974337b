import { newBadRequest, newInvalid, type StatusError } from '../errors/status-error.js';
import type { JsonObject, JsonValue } from '../meta/types.js';
import { invalid } from '../validation/field-error.js';
import { inDocumentOrder, strictErrorWarnings, strictFindingTexts, type FieldValidationDirective, type FieldValidationResult } from './field-validation.js';
import { goFormatValue } from './go-text.js';
import { JsonSyntaxError, parseJsonStrict } from './parse-json-strict.js';
import { parseYamlStrict, YamlSyntaxError, yamlDuplicatesMessage } from './parse-yaml-strict.js';
import type { Definitions } from './schema-node.js';
import { checkAgainstSchema } from './schema-walk.js';

/** The JSON-based patch formats. */
export type PatchKind = 'json' | 'merge' | 'strategic';

/** Stand-ins for the Go types upstream decodes patch documents into when checking them strictly. */
const PATCH_DOCUMENT_DEFINITIONS: Definitions = {
  'handlers.jsonPatchOp': {
    type: 'object',
    properties: {
      op: { type: 'string' },
      path: { type: 'string' },
      from: { type: 'string' },
      value: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  '[]handlers.jsonPatchOp': { type: 'array', items: { $ref: '#/definitions/handlers.jsonPatchOp' } },
  'map[string]interface {}': { type: 'object', additionalProperties: { 'x-kubernetes-preserve-unknown-fields': true } },
};

/**
 * Strict errors of the patch document itself, as upstream collects them for Warn and Strict:
 * repeated keys anywhere (JSON patch: also unknown keys in operations, each prefixed
 * `json patch `). Also returns the parsed document.
 * @throws StatusError 400 for a malformed document: `error decoding patch: <Go error>` for JSON
 * and merge patches, the bare Go error for strategic merge patches.
 */
export function checkPatchDocument(patchText: string, kind: PatchKind): { document: JsonValue; strictErrors: string[] } {
  const wrap = (msg: string): StatusError => newBadRequest(kind === 'strategic' ? msg : `error decoding patch: ${msg}`);
  let parsed;
  try {
    parsed = parseJsonStrict(patchText);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw wrap(e.message);
    throw e;
  }
  const root = kind === 'json' ? '[]handlers.jsonPatchOp' : 'map[string]interface {}';
  const check = checkAgainstSchema(parsed.value, PATCH_DOCUMENT_DEFINITIONS, root, {
    numberText: parsed.numberText,
    duplicates: parsed.duplicates,
  });
  if (check.decodeError) throw wrap(check.decodeError.goMessage);
  const texts = strictFindingTexts(inDocumentOrder(patchText, check.strict));
  return { document: parsed.value, strictErrors: kind === 'json' ? texts.map((t) => `json patch ${t}`) : texts };
}

/** Upstream's 422 for a patch whose result does not decode: `field.Invalid(patch, <patched>, <err>)`. */
function invalidPatch(shown: string, detail: string): StatusError {
  const err = newInvalid({ group: '', kind: '' }, '', [invalid('patch', shown, detail)]);
  // Upstream's details carry no empty kind (omitempty).
  if (err.status.details?.kind === '') delete err.status.details.kind;
  return err;
}

/** Arguments of {@link validatePatchedObject}. */
export interface PatchedObjectCheck {
  patchKind: PatchKind;
  /** The raw patch body. */
  patchText: string;
  /** The object after applying the patch. */
  patched: JsonValue;
  definitions: Definitions;
  rootName: string;
  directive: FieldValidationDirective;
  /**
   * The patched object as upstream's patch library serialized it, shown in 422 messages of JSON
   * and merge patches; defaults to JSON.stringify of `patched`.
   */
  patchedJson?: string;
}

/**
 * Field validation of a JSON, merge or strategic merge patch, as upstream's patch handler does
 * it: strict errors of the patch document (Warn/Strict only) come first, then the unknown fields
 * of the patched object (in sorted key order for JSON and merge patches, sorted by message for
 * strategic ones). Returns the patched object decoded (pruned) as Go would.
 * @throws StatusError 400 for a malformed patch document (Warn/Strict; see {@link checkPatchDocument}).
 * @throws StatusError 422 Invalid ` "" is invalid: patch: Invalid value: "<patched>": <error>` when
 * the patched object does not decode (any directive; Go's JSON decoder text for JSON and merge
 * patches, the unstructured converter's for strategic ones; `<patched>` is the patched JSON or, for
 * strategic patches, the patch document printed as Go's `%+v`), and under Strict for strict errors
 * (`<error>` = `strict decoding error: json patch duplicate field "[0].op", unknown field "spec.x"`).
 */
export function validatePatchedObject(args: PatchedObjectCheck): FieldValidationResult {
  const { patchKind, directive } = args;
  const strategic = patchKind === 'strategic';
  let patchErrors: string[] = [];
  let document: JsonValue | undefined;
  if (directive !== 'Ignore') ({ document, strictErrors: patchErrors } = checkPatchDocument(args.patchText, patchKind));
  const check = checkAgainstSchema(args.patched, args.definitions, args.rootName, {
    sortKeys: !strategic,
    converterMessages: strategic,
  });
  const shown = (): string => {
    if (!strategic) return args.patchedJson ?? JSON.stringify(args.patched);
    if (document === undefined) {
      try {
        document = parseJsonStrict(args.patchText).value;
      } catch {
        document = null;
      }
    }
    return goFormatValue(document);
  };
  if (check.decodeError) throw invalidPatch(shown(), check.decodeError.goMessage);
  if (directive === 'Ignore') return { object: check.value as JsonObject, warnings: [] };

  let unknown = strictFindingTexts(check.strict);
  // The unstructured converter sorts its unknown-field errors by text.
  if (strategic) unknown = [...unknown].sort();
  const strictErrors = [...patchErrors, ...unknown];
  if (directive === 'Strict' && strictErrors.length > 0) {
    throw invalidPatch(shown(), `strict decoding error: ${strictErrors.join(', ')}`);
  }
  return { object: check.value as JsonObject, warnings: directive === 'Warn' ? strictErrorWarnings(strictErrors) : [] };
}

/** What {@link decodeApplyPatch} returns. */
export interface ApplyPatchDecode {
  object: JsonObject;
  /** go-yaml's strict error for repeated keys, as upstream's yaml.UnmarshalStrict words it. */
  strictError?: string;
}

/**
 * Decodes a server-side apply body (YAML) into an object, noting repeated keys.
 * @throws StatusError 400 `error decoding YAML: error converting YAML to JSON: yaml: line N: ...`
 * for malformed YAML and `error decoding YAML: error unmarshaling JSON: while decoding JSON: json:
 * cannot unmarshal array into Go value of type map[string]interface {}` for a non-object.
 */
export function decodeApplyPatch(text: string): ApplyPatchDecode {
  let parsed;
  try {
    parsed = parseYamlStrict(text);
  } catch (e) {
    if (e instanceof YamlSyntaxError) throw newBadRequest(`error decoding YAML: error converting YAML to JSON: ${e.message}`);
    throw e;
  }
  const v = parsed.value;
  if (v !== null && (typeof v !== 'object' || Array.isArray(v))) {
    const what = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
    throw newBadRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`,
    );
  }
  const out: ApplyPatchDecode = { object: v ?? {} };
  if (parsed.duplicates.length > 0) out.strictError = `error converting YAML to JSON: ${yamlDuplicatesMessage(parsed.duplicates)}`;
  return out;
}

/**
 * The field validation step upstream runs after a successful apply: under Strict a 400
 * `error strict decoding YAML: <strictError>`, under Warn one warning per repeated key
 * (`line 5: key "a" already set in map`), nothing under Ignore. Unknown fields of apply bodies
 * are the field manager's concern, not this step's.
 * @throws StatusError 400 under Strict when the body had repeated keys.
 */
export function applyPatchWarnings(decoded: ApplyPatchDecode, directive: FieldValidationDirective): string[] {
  if (decoded.strictError === undefined || directive === 'Ignore') return [];
  if (directive === 'Strict') throw newBadRequest(`error strict decoding YAML: ${decoded.strictError}`);
  return strictErrorWarnings([decoded.strictError]);
}
