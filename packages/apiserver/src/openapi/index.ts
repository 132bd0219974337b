export { buildOpenApiV2, BEARER_SECURITY_SCHEME, type OpenApiV2Input, type OpenApiVersionInfo } from './v2.js';
export {
  buildOpenApiV3,
  buildOpenApiV3Document,
  buildOpenApiV3Index,
  openApiV3Path,
  toV3Schema,
  type OpenApiV3DocumentInput,
  type OpenApiV3IndexEntry,
  type OpenApiV3Set,
} from './v3.js';
export { openApiHash, serializeDocument, type SerializedDocument } from './hash.js';
export {
  resourcePaths,
  groupVersionPrefix,
  listDefinitionName,
  PATCH_MEDIA_TYPES,
  DEFAULT_PRODUCES,
  type OperationOptions,
  type OperationSpec,
  type PathSpec,
  type KubeAction,
} from './operations.js';
