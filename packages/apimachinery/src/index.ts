export * from './meta/types.js';
export * from './errors/status-error.js';
export * from './validation/field-error.js';
