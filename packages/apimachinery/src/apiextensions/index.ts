export * from './types.js';
export { validateAgainstSchema, deepEqual } from './schema-validate.js';
export { applyDefaults, decodeDefinition, publishedDefinition, customResourceDefinitionName, type CustomResourceGvk } from './schema-shapes.js';
export { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate, validateStructural } from './crd-validate.js';
export { acceptNames, type NamesDecision } from './crd-naming.js';
export { parseSimpleJsonPath, evaluateSimpleJsonPath } from './json-path.js';
export { desiredCrdStatus, namesAccepted } from './crd-conditions.js';
export { openApiV2Definition } from './openapi-v2.js';
