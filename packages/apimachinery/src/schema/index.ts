export { parseJsonStrict, JsonSyntaxError, type DuplicateKey, type JsonParseResult, type JsonParseOptions } from './parse-json-strict.js';
export { parseYamlStrict, YamlSyntaxError, yamlDuplicatesMessage, type YamlDuplicate, type YamlParseResult } from './parse-yaml-strict.js';
export { SchemaResolver, type Definitions, type NodeKind, type SchemaNode } from './schema-node.js';
export {
  checkAgainstSchema,
  type SchemaCheckOptions,
  type SchemaCheckResult,
  type SchemaTypeError,
  type StrictFinding,
} from './schema-walk.js';
export {
  decodeWithFieldValidation,
  inDocumentOrder,
  strictErrorWarnings,
  strictFindingTexts,
  summarizeBody,
  type FieldValidationDirective,
  type FieldValidationResult,
} from './field-validation.js';
export {
  applyPatchWarnings,
  checkPatchDocument,
  decodeApplyPatch,
  validatePatchedObject,
  type ApplyPatchDecode,
  type PatchKind,
  type PatchedObjectCheck,
} from './patch-validation.js';
export { goBase64Error, goRfc3339Error } from './go-decoders.js';
export { goQuote, goFormatValue } from './go-text.js';
export { canonicalQuantity, formatQuantity, parseQuantity, scaledQuantityValue, type QuantityAmount } from './quantity.js';
