export { metaDefinitions, defaultGroupVersions } from './meta-definitions.js';
export { RAW_EXTENSION, type GroupVersion } from './meta-request-definitions.js';
export * from './schema-builders.js';
export { forEachRef, mapRefs, definitionClosure, danglingRefs } from './refs.js';
