export * from './meta/types.js';
export * from './errors/status-error.js';
export * from './validation/index.js';
export * from './labels/index.js';
export * from './fields/index.js';
export * from './patch/index.js';
export * from './openapi/index.js';
export * from './codec/protobuf/index.js';
